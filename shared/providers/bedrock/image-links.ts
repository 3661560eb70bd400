import type { AdapterInput, ImageFetcher } from '../types.js';
import { isRecord, stringOf } from './json.js';

/**
 * Converse takes images as bytes only. Before the request is built, every `image_url` part whose URL is an
 * http(s) link — in user messages and in tool results — is fetched through the gateway's fetcher (address rules,
 * size cap, timeout, bounded parallelism) and replaced by a data URL, so the translation stays synchronous and
 * pure. A request without links is returned as it came, without a copy.
 */
export async function withImageLinksFetched(input: AdapterInput, fetchImage: ImageFetcher): Promise<AdapterInput> {
  const messages = input.body.messages;
  if (input.endpoint !== 'chat' || !Array.isArray(messages)) return input;
  const links = imageLinksOf(messages);
  if (links.length === 0) return input;
  const fetched = await Promise.all(links.map((link) => fetchImage(link.url, link.param)));
  const copy = structuredClone(messages) as Array<{ content: Array<Record<string, unknown>> }>;
  links.forEach((link, index) => {
    const part = copy[link.message].content[link.part];
    part.image_url = { ...(isRecord(part.image_url) ? part.image_url : {}), url: `data:${fetched[index].mediaType};base64,${fetched[index].base64}` };
  });
  return { ...input, body: { ...input.body, messages: copy } };
}

interface ImageLink {
  message: number;
  part: number;
  url: string;
  /** The JSON path errors name, the same one the translation uses. */
  param: string;
}

function imageLinksOf(messages: unknown[]): ImageLink[] {
  const links: ImageLink[] = [];
  messages.forEach((message, messageIndex) => {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'tool') || !Array.isArray(message.content)) return;
    message.content.forEach((part: unknown, partIndex) => {
      if (!isRecord(part) || part.type !== 'image_url') return;
      const url = isRecord(part.image_url) ? stringOf(part.image_url.url) : stringOf(part.image_url);
      if (url && /^https?:\/\//i.test(url)) {
        links.push({ message: messageIndex, part: partIndex, url, param: `messages[${messageIndex}].content[${partIndex}].image_url.url` });
      }
    });
  });
  return links;
}
