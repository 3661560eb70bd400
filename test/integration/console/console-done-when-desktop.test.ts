import { describe, it } from 'vitest';
import { useDoneWhenWalk, walk } from './done-when-walk.js';

// Issue #46's "Done when" walk (done-when-walk.ts) at 1280 px; its sibling file walks it at the other width.
useDoneWhenWalk(1280);

describe('issue #46 "Done when", one walk, in Debian chromium', { timeout: 240_000 }, () => {
  it('at 1280 px', () => walk('desktop'));
});
