import { CHAT_FEATURES, chatFeatureCell } from './chat-features.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from './openai-compatible/catalog.js';
import { passthroughSupport } from './passthrough-registry.js';
import { PASSTHROUGH_ENDPOINTS } from './passthrough-types.js';
import { providerEntries } from './registry.js';

/**
 * docs/providers.md's capability tables, rendered from the registry itself (every provider, native or
 * OpenAI-compatible, whoever added it), so the page cannot drift from the code: scripts/providers-table.ts writes
 * them between markers and a test fails when the committed page differs.
 */
export const TABLE_MARKERS = { start: '<!-- providers-table:start -->', end: '<!-- providers-table:end -->' } as const;
export const FAMILY_MARKERS = { start: '<!-- openai-compatible-table:start -->', end: '<!-- openai-compatible-table:end -->' } as const;
export const FEATURE_MARKERS = { start: '<!-- chat-features-table:start -->', end: '<!-- chat-features-table:end -->' } as const;

/** Provider × endpoint: ✓ translated or served natively (pass-through endpoints of providers with their own API included), "pass" relayed untranslated, blank not offered (400). */
export function renderCapabilityTable(): string {
  const entries = providerEntries();
  const passthroughNames = new Set<string>(PASSTHROUGH_ENDPOINTS);
  const endpointColumns = [...new Set(entries.flatMap((entry) => entry.endpoints))].filter((endpoint) => !passthroughNames.has(endpoint));
  const columns = [...endpointColumns, ...PASSTHROUGH_ENDPOINTS];
  const lines = [`| provider (aliases) | ${columns.map((column) => `\`${column}\``).join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`];
  for (const entry of entries) {
    const support = passthroughSupport(entry.slug);
    const relayed = support?.endpoints ?? [];
    const cells = columns.map((column) => {
      if ((entry.endpoints as readonly string[]).includes(column)) return '✓';
      if (!(relayed as readonly string[]).includes(column)) return '';
      return support?.translates ? '✓' : 'pass';
    });
    lines.push(`| ${nameCell(entry.slug, entry.aliases)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Every provider that serves chat × the chat features (chat-features.ts): ✓ translated, pass relayed, blank refused. */
export function renderChatFeatureTable(): string {
  const lines = [`| provider (aliases) | ${CHAT_FEATURES.map((feature) => `\`${feature}\``).join(' | ')} |`, `|---|${CHAT_FEATURES.map(() => '---').join('|')}|`];
  for (const entry of providerEntries().filter((candidate) => candidate.endpoints.includes('chat'))) {
    const cells = CHAT_FEATURES.map((feature) => {
      const cell = chatFeatureCell(entry.slug, feature);
      // A chat provider the feature list does not know is a defect of the list, not a blank row.
      if (cell === undefined) throw new Error(`shared/providers/chat-features.ts does not say what '${entry.slug}' does with ${feature}`);
      return cell;
    });
    lines.push(`| ${nameCell(entry.slug, entry.aliases)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The OpenAI-compatible rows: default host and whether gw asks for stream usage with `stream_options`. */
export function renderOpenAICompatibleTable(): string {
  const lines = ['| slug (aliases) | default base URL | auth | stream usage |', '|---|---|---|---|'];
  for (const row of OPENAI_COMPATIBLE_PROVIDERS) {
    // A per-account row shows its address with the header that fills it in.
    const address = row.account ? row.account.baseUrl(`{${row.account.header}}`) : row.baseUrl;
    const query = row.query ? `?${new URLSearchParams(row.query).toString()}` : '';
    const base = address ? `\`${address}${query}\`` : '— (send `x-gw-custom-host`)';
    const auth = row.authHeader ? `\`${row.authHeader}: <token>\`` : 'Bearer';
    const usage = row.acceptsStreamOptions ? '`stream_options.include_usage`' : "the provider's own last chunk";
    lines.push(`| ${nameCell(row.slug, row.aliases ?? [])} | ${base} | ${auth} | ${usage} |`);
  }
  return lines.join('\n');
}

function nameCell(slug: string, aliases: readonly string[]): string {
  return aliases.length > 0 ? `\`${slug}\` (${aliases.map((alias) => `\`${alias}\``).join(', ')})` : `\`${slug}\``;
}

/** The page with both tables replaced between their markers; throws when a marker pair is missing. */
export function withGeneratedTables(page: string): string {
  const tables = replaceBetween(replaceBetween(page, TABLE_MARKERS, renderCapabilityTable()), FAMILY_MARKERS, renderOpenAICompatibleTable());
  return replaceBetween(tables, FEATURE_MARKERS, renderChatFeatureTable());
}

function replaceBetween(page: string, markers: { start: string; end: string }, body: string): string {
  const start = page.indexOf(markers.start);
  const end = page.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`docs/providers.md lacks the markers ${markers.start} … ${markers.end}`);
  return `${page.slice(0, start + markers.start.length)}\n${body}\n${page.slice(end)}`;
}
