/**
 * toolguard for agent frameworks: the shared call guard. Each framework's
 * integration is a subpath: `@toolguard/integrations/ai-sdk`,
 * `@toolguard/integrations/openai-agents`, `@toolguard/integrations/langgraph`.
 *
 * @packageDocumentation
 */

export * from "./core.js";
