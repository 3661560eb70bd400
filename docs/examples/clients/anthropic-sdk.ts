import Anthropic from '@anthropic-ai/sdk';

// The official Anthropic SDK: gw's key and config go as default headers; baseURL is gw without /v1.
export async function main(): Promise<string> {
  const client = new Anthropic({
    baseURL: process.env.GW_BASE_URL,
    apiKey: 'unused',
    defaultHeaders: { 'x-gw-api-key': process.env.GW_API_KEY!, 'x-gw-config': process.env.GW_CONFIG! },
  });
  const stream = client.messages.stream({ model: 'claude-sonnet-4-5-20250929', max_tokens: 512, messages: [{ role: 'user', content: 'Say hello.' }] });
  const message = await stream.finalMessage();
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
