// The one SWC setting for TypeScript sources, shared by jest (jest.config.js) and by
// register-ts.js, which runs the server from source: both compile the code the same way.
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
