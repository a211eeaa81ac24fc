/**
 * The architecture as rules (`npm run lint`, and a test in kit/test): no
 * import cycles, and within each package no import from a lower layer up to a
 * higher one. A layer may import any layer listed before it, never one after;
 * folders on one line are peers that do not import each other.
 * See docs/architecture.md.
 */
const LAYERS = {
  kit: [
    ['records', 'error-message', 'node-floor', 'random-hex', 'terminal-text', 'loop-slices', 'shell-words'],
    ['mcp-host-entry'],
    ['cli', 'http', 'atomic-write'],
    ['server-options'],
    ['testing'],
  ],
  auth: [
    ['errors', 'shared'],
    ['spiffe', 'oauth', 'audit', 'metrics'],
    ['policy'],
    ['authz', 'mcp-server', 'agent', 'identity-provider'],
    ['stdio-wrapper', 'proxy'],
    ['demo'],
    ['cli'],
  ],
  rag: [
    ['errors'],
    ['config'],
    ['walk', 'embed', 'lexical'],
    ['chunk'],
    ['store'],
    ['vectors'],
    ['words'],
    ['snapshot'],
    ['search'],
    ['indexer'],
    ['live-index', 'http', 'eval'],
    ['notes', 'status'],
    ['mcp'],
    ['cli'],
  ],
};

const folder = (name) => name.replace(/[.-]/g, '\\$&');

/** For every layer: imports of any folder that sits on its own line or a later one (a peer or a higher layer). */
function layerRules() {
  return Object.entries(LAYERS).flatMap(([pkg, layers]) =>
    layers.flatMap((line, index) =>
      line.map((name) => {
        const forbidden = layers
          .slice(index)
          .flat()
          .filter((other) => other !== name);
        return {
          name: `${pkg}-${name}-imports-upward`,
          comment: `${pkg}/src/${name} may only import the layers below it`,
          severity: 'error',
          from: { path: `^${pkg}/src/${folder(name)}(/|\\.ts$)` },
          to: { path: `^${pkg}/src/(${forbidden.map(folder).join('|')})(/|\\.ts$)` },
        };
      }),
    ),
  );
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle makes two modules one; split them or move the shared piece down.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'rag-does-not-use-auth',
      comment: 'The retrieval half stands alone: shared pieces live in kit.',
      severity: 'error',
      from: { path: '^rag/' },
      to: { path: '^auth/' },
    },
    {
      name: 'kit-depends-on-nothing-of-ours',
      severity: 'error',
      from: { path: '^kit/' },
      to: { path: '^(auth|rag)/' },
    },
    ...layerRules(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'], conditionNames: ['import', 'types', 'default'] },
  },
};
