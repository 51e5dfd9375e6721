/**
 * The public pages: what they show, that they read well (headings, contrast, findable text), at a
 * phone's width, and the security headers every page carries. Each part is a test file of its
 * own, run in this file's module registry (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['public-pages', 'readable-pages', 'phone-widths', 'security-headers']);
