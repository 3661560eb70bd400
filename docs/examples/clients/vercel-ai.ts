import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';

// The Vercel AI SDK's OpenAI provider: `openai(model)` calls gw's /v1/responses.
export async function main(): Promise<string> {
  const openai = createOpenAI({
    baseURL: `${process.env.GW_BASE_URL}/v1`,
    apiKey: 'unused',
    headers: { 'x-gw-api-key': process.env.GW_API_KEY!, 'x-gw-config': process.env.GW_CONFIG! },
  });
  const { text } = await generateText({ model: openai('gpt-4.1-mini'), prompt: 'Say hello.' });
  return text;
}
