import { featureLines } from '../../../cli/start-banner';

describe("npm start's banner", () => {
  it('says coding sessions are on where the machine isolates them, and no vote counts without a trusted judge', () => {
    expect(featureLines({ hasTrustedJudge: false })).toEqual([
      '  Coding:       on, every command of a session under bubblewrap',
      '  Votes:        none counts yet: no judge is trusted. Vouch for judges with',
      '                npm run arena -- judges trust <username>',
    ]);
  });

  it('says coding sessions are off, and why, where the machine cannot isolate them', () => {
    expect(featureLines({ hasTrustedJudge: true, codingOff: 'bwrap is not installed' })).toEqual([
      '  Coding:       off, every session ends as error: bwrap is not installed (README: Set up)',
    ]);
  });
});
