import { expect } from 'vitest';
import { InvalidSettingsError, parseSettings } from '../../shared/settings.js';

/** The issues parseSettings refuses `env` with (it must refuse, with InvalidSettingsError). */
export function settingIssues(env: Record<string, string>): string[] {
  try {
    parseSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return (error as InvalidSettingsError).issues;
  }
  throw new Error('the settings were accepted');
}

/** The whole message of that refusal. */
export function settingsRefusal(env: Record<string, string>): string {
  return new InvalidSettingsError(settingIssues(env)).message;
}
