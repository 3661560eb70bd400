import { ChatOpenAI } from '@langchain/openai';

// LangChain's ChatOpenAI on the Responses API.
export async function main(): Promise<string> {
  const model = new ChatOpenAI({
    model: 'gpt-4.1-mini',
    apiKey: 'unused',
    useResponsesApi: true,
    configuration: {
      baseURL: `${process.env.GW_BASE_URL}/v1`,
      defaultHeaders: { 'x-gw-api-key': process.env.GW_API_KEY!, 'x-gw-config': process.env.GW_CONFIG! },
    },
  });
  const reply = await model.invoke('Say hello.');
  return reply.text;
}
