/**
 * `npm start`'s banner lines for what works and what does not yet: coding sessions (off, with the
 * reason, when the machine cannot isolate them) and votes (none counts until a judge is trusted).
 */
export function featureLines(state: { hasTrustedJudge: boolean; codingOff?: string }): string[] {
  return [
    state.codingOff
      ? `  Coding:       off, every session ends as error: ${state.codingOff} (README: Set up)`
      : '  Coding:       on, every command of a session under bubblewrap',
    ...(state.hasTrustedJudge
      ? []
      : [
          '  Votes:        none counts yet: no judge is trusted. Vouch for judges with',
          '                npm run arena -- judges trust <username>',
        ]),
  ];
}
