/**
 * The configuration files of a local SPIRE deployment (docs/demo.md#spire-on-this-machine), as HCL
 * text. Pure: every path and port comes in, nothing is read from the environment, so SPIRE is
 * started without `-expandEnv` and an unknown key (fatal to SPIRE) can only come from here.
 */

export const SPIRE_JWT_KEY_TYPES = ['ec-p256', 'rsa-2048'] as const;
export type SpireJwtKeyType = (typeof SPIRE_JWT_KEY_TYPES)[number];

export interface ServerConfigInput {
  readonly trustDomain: string;
  readonly port: number;
  /** The admin API socket (entries, tokens, authorities). */
  readonly socketPath: string;
  readonly dataDir: string;
  /** JWT-SVID signing keys: ES256 (SPIRE's default) or RS256. */
  readonly jwtKeyType: SpireJwtKeyType;
}

export interface AgentConfigInput {
  readonly trustDomain: string;
  readonly serverPort: number;
  /** The Workload API socket. */
  readonly socketPath: string;
  readonly dataDir: string;
  /** The server's CA bundle (PEM), for the first connection. */
  readonly trustBundlePath: string;
  readonly joinTokenFile: string;
}

/**
 * Entries and SVIDs propagate within about a second instead of SPIRE's five: the server reloads its
 * entry cache and the agents sync every second. Both settings are `experimental` in SPIRE 1.15.3.
 */
const FAST_INTERVAL = '1s';

export function serverConfig(input: ServerConfigInput): string {
  return `server {
    bind_address = "127.0.0.1"
    bind_port = "${input.port}"
    socket_path = ${hclString(input.socketPath)}
    trust_domain = ${hclString(input.trustDomain)}
    data_dir = ${hclString(input.dataDir)}
    log_level = "INFO"
    jwt_key_type = ${hclString(input.jwtKeyType)}
    experimental {
        cache_reload_interval = "${FAST_INTERVAL}"
    }
}

plugins {
    DataStore "sql" {
        plugin_data {
            database_type = "sqlite3"
            connection_string = ${hclString(`${input.dataDir}/datastore.sqlite3`)}
        }
    }
    KeyManager "disk" {
        plugin_data {
            keys_path = ${hclString(`${input.dataDir}/keys.json`)}
        }
    }
    NodeAttestor "join_token" {
        plugin_data {}
    }
}
`;
}

/**
 * DEBUG: the agent then logs one "Fetched JWT SVID" line per JWT-SVID it hands out, which is how the
 * demo shows that a refused issuer got no SVID.
 */
export function agentConfig(input: AgentConfigInput): string {
  return `agent {
    trust_domain = ${hclString(input.trustDomain)}
    server_address = "127.0.0.1"
    server_port = "${input.serverPort}"
    socket_path = ${hclString(input.socketPath)}
    data_dir = ${hclString(input.dataDir)}
    trust_bundle_path = ${hclString(input.trustBundlePath)}
    join_token_file = ${hclString(input.joinTokenFile)}
    log_level = "DEBUG"
    experimental {
        sync_interval = "${FAST_INTERVAL}"
    }
}

plugins {
    NodeAttestor "join_token" {
        plugin_data {}
    }
    KeyManager "disk" {
        plugin_data {
            directory = ${hclString(input.dataDir)}
        }
    }
    WorkloadAttestor "unix" {
        plugin_data {}
    }
}
`;
}

/**
 * An HCL quoted string. SPIRE reads its configuration with HCL 1, whose string escapes are JSON's and
 * which has no templates: `${` and `%{` are plain text there (checked against spire-server 1.15.3).
 */
export function hclString(value: string): string {
  return JSON.stringify(value);
}
