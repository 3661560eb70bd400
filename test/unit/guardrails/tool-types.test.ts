import { describe, expect, it } from 'vitest';
import { toolTypeMatches } from '../../../shared/guardrails/tool-types.js';

describe('tool type families', () => {
  it('a plain name matches itself, its previews and its dated or numbered versions', () => {
    for (const type of ['web_search', 'web_search_preview', 'web_search_preview_2025_03_11', 'web_search_20250305', 'web_search_2025_08_26']) expect(toolTypeMatches('web_search', type), type).toBe(true);
    expect(toolTypeMatches('bash', 'bash_20250124')).toBe(true);
    expect(toolTypeMatches('text_editor', 'text_editor_20250728')).toBe(true);
    expect(toolTypeMatches('computer_use', 'computer_use_preview')).toBe(true);
    expect(toolTypeMatches('code_execution', 'code_execution_20250825')).toBe(true);
  });

  it('a plain name does not match another tool that shares its start', () => {
    expect(toolTypeMatches('web_search', 'web_search_tool_of_mine')).toBe(false);
    expect(toolTypeMatches('computer', 'computer_use_preview')).toBe(false);
    expect(toolTypeMatches('mcp', 'mcp_server')).toBe(false);
    expect(toolTypeMatches('function', 'functions')).toBe(false);
  });

  it('a trailing * matches every type with that start; * alone matches all', () => {
    expect(toolTypeMatches('computer*', 'computer_use_preview')).toBe(true);
    expect(toolTypeMatches('computer*', 'computer_20250124')).toBe(true);
    expect(toolTypeMatches('bash_*', 'bash_20250124')).toBe(true);
    expect(toolTypeMatches('*', 'anything')).toBe(true);
    expect(toolTypeMatches('web*', 'file_search')).toBe(false);
  });

  it('is case-sensitive', () => {
    expect(toolTypeMatches('web_search', 'Web_Search')).toBe(false);
  });
});
