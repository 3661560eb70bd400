import type { Capability } from './capabilities';

/** The line that says why a page's actions are disabled (the scope the key lacks), in place of a refused request. */
export function WriteNote({ write, what }: { write: { can: Capability; reason?: string }; what: string }) {
  if (write.can !== 'no') return null;
  return (
    <p class="muted" data-testid="write-disabled">
      Your key can't change {what}: {write.reason}
    </p>
  );
}
