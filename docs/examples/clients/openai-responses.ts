import OpenAI from 'openai';

// The official openai SDK: gw's key goes in a default header; `x-gw-config` names a saved config (or carries
// one inline) that says which provider and credential answer. The SDK's own apiKey is then unused.
export async function main(): Promise<string> {
  const client = new OpenAI({
    baseURL: `${process.env.GW_BASE_URL}/v1`,
    apiKey: 'unused',
    defaultHeaders: { 'x-gw-api-key': process.env.GW_API_KEY!, 'x-gw-config': process.env.GW_CONFIG! },
  });
  const first = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Say hello.' });
  // gw keeps the response (store defaults to true), so the conversation continues on any provider.
  const next = await client.responses.create({ model: 'gpt-4.1-mini', previous_response_id: first.id, input: 'Again, shorter.' });
  return next.output_text;
}
