import { CfnResource, TagManager } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../infra/cdk/config.js';
import { cdkJsonContext, synthGwStack, tableWithScheduledFixtures } from './support/synth.js';
import { functionProperties } from './support/template-queries.js';

/**
 * What a team running the stack needs besides the functions: tags on everything (cost allocation), alarms that reach
 * someone, and cold starts that do not pay for source maps in production.
 */
type Tag = { Key: string; Value: string };

/** A resource's tags as a map, whichever of CloudFormation's shapes it uses (a list of Key/Value or a map). */
function tagsOf(properties: Record<string, unknown> | undefined): Record<string, unknown> {
  const tags = properties?.Tags ?? properties?.UserPoolTags ?? properties?.TagList;
  if (Array.isArray(tags)) return Object.fromEntries((tags as Tag[]).map((tag) => [tag.Key, tag.Value]));
  return (tags as Record<string, unknown> | undefined) ?? {};
}

describe('stack-wide tags', () => {
  it('puts the configured tags (cdk.json: project=gw) on every taggable resource of the template', () => {
    const { stack, template } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { tags: { project: 'gw', 'cost-centre': 'ml-platform' } } });
    const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
    const taggable = stack.node
      .findAll()
      .filter((construct): construct is CfnResource => CfnResource.isCfnResource(construct) && TagManager.isTaggable(construct))
      .map((resource) => stack.getLogicalId(resource));
    expect(taggable.length).toBeGreaterThan(15);
    const untagged = taggable.filter((id) => {
      const tags = tagsOf(json.Resources[id]?.Properties);
      return tags.project !== 'gw' || tags['cost-centre'] !== 'ml-platform';
    });
    expect(untagged.map((id) => `${id} (${json.Resources[id]?.Type})`)).toEqual([]);
  });

  it('reads tags from context as JSON and refuses keys AWS reserves', () => {
    const read = (context: Record<string, unknown>) => readConfig((key) => ({ ...cdkJsonContext(), ...context })[key]);
    expect(read({}).tags).toEqual({ project: 'gw' });
    expect(read({ tags: '{"team":"ml"}' }).tags).toEqual({ team: 'ml' });
    expect(() => read({ tags: { 'aws:owner': 'me' } })).toThrow(/tags\.aws:owner: Invalid key/);
  });
});

describe('alarms that reach someone', () => {
  it('warns at synth when neither alarmEmail nor alarmTopicArn is set, and not when one is', () => {
    const warning = Match.stringLikeRegexp('alarms notify an SNS topic with no subscriber: set alarmEmail or alarmTopicArn');
    synthGwStack({ annotations: true }).annotations!.hasWarning('*', warning);
    synthGwStack({ annotations: true, context: { alarmEmail: 'ops@example.com' } }).annotations!.hasNoWarning('*', warning);
    synthGwStack({ annotations: true, context: { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' } }).annotations!.hasNoWarning('*', warning);
  });

  it('refuses to synthesise with productionChecks and no one to notify', () => {
    expect(() => synthGwStack({ context: { productionChecks: true } })).toThrow(/alarmEmail: productionChecks requires alarmEmail or alarmTopicArn/);
    expect(() => synthGwStack({ context: { productionChecks: true, alarmEmail: 'ops@example.com' } })).not.toThrow();
  });
});

describe('source maps', () => {
  it('are not loaded by a production cold start (no NODE_OPTIONS), and are where sourceMaps or development asks for them', () => {
    const production = synthGwStack().template;
    const variablesOf = (template: typeof production) => (functionProperties(template, 'gateway').Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variablesOf(production).NODE_OPTIONS).toBeUndefined();
    expect(variablesOf(synthGwStack({ context: { environment: 'development' } }).template).NODE_OPTIONS).toBe('--enable-source-maps');
    expect(variablesOf(synthGwStack({ context: { sourceMaps: 'true' } }).template).NODE_OPTIONS).toBe('--enable-source-maps');
  });
});
