/**
 * Preloaded into every long-lived bench child (`node --import ./bench/processes/parent-watchdog.mjs …`): the
 * harness holds the child's stdin open, so when the harness dies, even by SIGKILL, stdin ends and the child
 * terminates itself (SIGTERM first, so it shuts down as it normally would) instead of lingering.
 * Plain JavaScript, so that it needs no loader: the compiled gw used for profiling runs without tsx.
 */
import process from 'node:process';
import { setTimeout } from 'node:timers';

process.stdin.on('end', () => {
  process.kill(process.pid, 'SIGTERM');
  // A process that ignores SIGTERM still goes.
  setTimeout(() => process.exit(1), 5_000).unref();
});
process.stdin.resume();
// Reading stdin must not keep a finished process alive.
process.stdin.unref?.();
