/** The arena's address as a flag gives it: an http(s) URL, without a trailing slash. */
import { InvalidArgumentError } from 'commander';

export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as https://arena.example');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http(s) URL');
  return value.replace(/\/+$/, '');
}
