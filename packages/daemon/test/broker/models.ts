/** Models for the agent-loop tests: the built-in scripted provider, optionally observed. */
import {
  createLanguageModel,
  type LanguageModelV4,
  type ScriptedTurn,
} from '../../src/model-access/providers/index.ts';

type CallOptions = Parameters<LanguageModelV4['doStream']>[0];

export function scripted(script: ScriptedTurn[]): LanguageModelV4 {
  return createLanguageModel({ provider: 'scripted', model: 'test', script });
}

/** A scripted model that remembers every call made to it (the prompt, the tools offered). */
export function observed(script: ScriptedTurn[]): { model: LanguageModelV4; calls: CallOptions[] } {
  const inner = scripted(script);
  const calls: CallOptions[] = [];
  return {
    model: {
      ...inner,
      doStream: (options) => {
        calls.push(options);
        return inner.doStream(options);
      },
    },
    calls,
  };
}

/** Names of the tools a model call offered. */
export function offeredTools(options: CallOptions): string[] {
  return (options.tools ?? []).map((t) => t.name);
}
