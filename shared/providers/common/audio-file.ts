import { badRequest } from '../../http/errors.js';
import type { PassthroughInput } from '../passthrough-types.js';

/**
 * OpenAI's transcription form → the audio file alone, as the body, with the file's own content-type: what
 * providers that take raw audio (Deepgram's listen, AssemblyAI's upload) want instead of the form.
 */
export async function audioFileAsBody(input: PassthroughInput): Promise<PassthroughInput> {
  const form = await new Response(input.body, { headers: { 'content-type': input.contentType } }).formData();
  const file = form.get('file');
  if (!(file instanceof Blob)) throw badRequest('missing_file', 'The form needs a file in the `file` field', 'file');
  return { ...input, body: new Uint8Array(await file.arrayBuffer()), contentType: file.type || 'application/octet-stream' };
}
