import * as z from 'zod';
import { badRequest } from '../../http/errors.js';
import type { Tags } from '../../store/integration-repository.js';

const TAG_KEY = /^[A-Za-z0-9_.\-/]{1,64}$/;

/** `tags` of integrations and providers: up to 20 labels; keys without ':' or ',', values without ','. */
export const tagsSchema = z
  .record(z.string().regex(TAG_KEY, 'tag keys are 1-64 letters, digits, "_", ".", "-" or "/"'), z.string().max(255).regex(/^[^,]*$/, 'tag values may not contain ","'))
  .refine((tags) => Object.keys(tags).length <= 20, 'at most 20 tags')
  .meta({ description: 'Key → value labels; filter lists with ?tags=key:value (several: key:value,key2:value2, all must match).' });

export const tagsQueryField = z.string().max(2048).optional().meta({ description: 'key:value[,key:value…]: only records carrying every one of these tags.' });

/** Parses `?tags=env:prod,team:ml` into the pairs a record must all carry. */
export function readTagFilter(value: string | undefined): Tags {
  if (value === undefined || value === '') return {};
  const filter: Tags = {};
  for (const pair of value.split(',')) {
    const separator = pair.indexOf(':');
    const key = separator > 0 ? pair.slice(0, separator) : '';
    if (!TAG_KEY.test(key)) throw badRequest('invalid_request', `tags: expected key:value pairs separated by ",", got '${pair.slice(0, 100)}'`, 'tags');
    filter[key] = pair.slice(separator + 1);
  }
  return filter;
}

export function hasTags(tags: Tags, filter: Tags): boolean {
  return Object.entries(filter).every(([key, value]) => tags[key] === value);
}
