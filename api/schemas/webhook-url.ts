/**
 * The shape of a webhook URL, as a pattern the OpenAPI document can carry: http or https, a host
 * name or an IP address in any spelling a browser's URL parser takes (the address guard then
 * judges where it points), an optional port, and printable characters after it. Every string it
 * matches parses as a URL, so a request the document calls valid is never refused for its form.
 */

const HEX = '[0-9A-Fa-f]';
const H16 = `${HEX}{1,4}`;
const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const DOTTED_QUAD = `(?:${DEC_OCTET}\\.){3}${DEC_OCTET}`;

/** One part of a dotted IPv4 address: decimal, octal (`0177`) or hex (`0x7f`), at most 255. */
const IPV4_PART = `(?:0[xX]${HEX}{1,2}|0[0-3]?[0-7]{0,2}|${DEC_OCTET})`;

/** The IPv4 spellings URL parsers accept: `127.0.0.1`, `0177.0.0.1`, `127.1`, `2130706433`, `0x7f000001`. */
const IPV4 = [
  `(?:${IPV4_PART}\\.){3}${IPV4_PART}`,
  `${IPV4_PART}\\.(?:0|[1-9][0-9]{0,6})`,
  '(?:[1-9][0-9]{0,8}|[1-3][0-9]{9})',
  `0[xX]${HEX}{1,8}`,
].join('|');

/** Every IPv6 form: full, compressed, and with an IPv4 tail (`::ffff:127.0.0.1`). */
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  `(?:${H16}:){1,5}(?::${H16}){1,2}`,
  `(?:${H16}:){1,4}(?::${H16}){1,3}`,
  `(?:${H16}:){1,3}(?::${H16}){1,4}`,
  `(?:${H16}:){1,2}(?::${H16}){1,5}`,
  `${H16}:(?::${H16}){1,6}`,
  `:(?:(?::${H16}){1,7}|:)`,
  `::(?:[Ff]{4}(?::0{1,4})?:)?${DOTTED_QUAD}`,
  `(?:${H16}:){1,4}:${DOTTED_QUAD}`,
].join('|');

/** A host name whose last label starts with a letter, so no parser reads it as a number. */
const HOST_NAME = '(?:[A-Za-z0-9_-]{1,63}\\.)*[A-Za-z][A-Za-z0-9_-]{0,62}\\.?';

const PORT = '(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';

export const WEBHOOK_URL_PATTERN = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:${HOST_NAME}|${IPV4}|\\[(?:${IPV6})\\])(?::${PORT})?(?:[/?#][!-~]*)?$`,
);

export const WEBHOOK_URL_RULE = 'must be an http or https URL, such as https://agent.example/hook';
