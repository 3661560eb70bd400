import { describe, expect, it } from 'vitest';
import { applyPatch, patchRequestSchema, type PatchOperation } from '../../../shared/control-plane/scim/patch.js';
import { applyFilter, ScimError } from '../../../shared/control-plane/scim/protocol.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ops = (...operations: unknown[]): PatchOperation[] =>
  patchRequestSchema.parse({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations }).Operations;

const user = () => ({
  userName: 'a@x.example',
  name: { givenName: 'A', familyName: 'B' },
  emails: [{ value: 'a@x.example', type: 'work', primary: true }],
  active: true,
});

describe('SCIM PatchOp engine', () => {
  it('applies path-less values attribute by attribute, URN-keyed extension objects included', () => {
    const patched = applyPatch(user(), ops({ op: 'Replace', value: { active: false, displayName: 'Ann', [ENTERPRISE]: { department: 'Ops' } } }));
    expect(patched).toMatchObject({ active: false, displayName: 'Ann', [ENTERPRISE]: { department: 'Ops' } });
  });

  it('matches attribute names without case and strips the core schema URN', () => {
    const patched = applyPatch(user(), ops({ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:NAME.GivenName', value: 'Z' }));
    expect(patched.name).toEqual({ givenName: 'Z', familyName: 'B' });
  });

  it('adds to multi-valued attributes without duplicates and removes by value list or by filter', () => {
    const group = { displayName: 'g', members: [{ value: 'u1' }] };
    const added = applyPatch(group, ops({ op: 'add', path: 'members', value: [{ value: 'u1' }, { value: 'u2' }] }));
    expect(added.members).toEqual([{ value: 'u1' }, { value: 'u2' }]);
    expect(applyPatch(added, ops({ op: 'remove', path: 'members', value: [{ value: 'u1' }] })).members).toEqual([{ value: 'u2' }]);
    expect(applyPatch(added, ops({ op: 'remove', path: 'members[value eq "u2"]' })).members).toEqual([{ value: 'u1' }]);
  });

  it('creates the item a value filter names when none matches', () => {
    const patched = applyPatch(user(), ops({ op: 'add', path: 'emails[type eq "home"].value', value: 'a@home.example' }));
    expect(patched.emails).toEqual([
      { value: 'a@x.example', type: 'work', primary: true },
      { type: 'home', value: 'a@home.example' },
    ]);
  });

  it('leaves the input untouched and refuses what it cannot apply', () => {
    const original = user();
    applyPatch(original, ops({ op: 'remove', path: 'name' }));
    expect(original.name).toEqual({ givenName: 'A', familyName: 'B' });
    expect(() => applyPatch(user(), ops({ op: 'remove' }))).toThrow(ScimError);
    expect(() => applyPatch(user(), ops({ op: 'add', value: 'not an object' }))).toThrow(/object value/);
    expect(() => applyPatch(user(), ops({ op: 'replace', path: 'emails[type eq', value: 1 }))).toThrow(ScimError);
    expect(() => ops({ op: 'move', path: 'x' })).toThrow();
  });
});

describe('SCIM filters', () => {
  const resources = [
    { id: 'A1', externalId: 'Ext', userName: 'Alice@X.example' },
    { id: 'b2', externalId: 'ext', userName: 'bob@x.example' },
  ];

  it('compares without case except id and externalId', () => {
    expect(applyFilter(resources, 'userName eq "alice@x.example"').map((item) => item.id)).toEqual(['A1']);
    expect(applyFilter(resources, 'externalId eq "ext"').map((item) => item.id)).toEqual(['b2']);
    expect(applyFilter(resources, 'id eq "a1"')).toEqual([]);
    expect(applyFilter(resources, 'userName sw "B" and userName co "X.EX"').map((item) => item.id)).toEqual(['b2']);
  });

  it('refuses a filter that does not parse with invalidFilter', () => {
    expect(() => applyFilter(resources, 'userName eq')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', status: 400 }));
  });
});
