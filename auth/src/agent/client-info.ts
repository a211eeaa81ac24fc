import { packageVersion } from '@notegate/kit/cli';

/** MCP clientInfo of the agent: the version `notegate --version` prints, the package's. */
export function agentClientInfo(): { readonly name: string; readonly version: string } {
  return { name: 'notegate-agent', version: packageVersion(import.meta.url) };
}
