import type { ResourceScope } from '../resource/define-resource.js';

/** Where a call acts: only the workspace matters to a versioned-document service (the scope check is the route's). */
export type WorkspaceScope = Pick<ResourceScope, 'workspaceId'>;
