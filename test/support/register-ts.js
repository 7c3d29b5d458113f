// Lets `node -r ./test/support/register-ts.js apps/api/src/main.ts` run the server from its
// TypeScript sources, compiled on load with jest's SWC settings (swc-options.js): a
// reliability suite can spawn the real process without waiting ~1 min for `nest build`.
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..');
const options = require('./swc-options');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};

// The `@app/<context>` paths of tsconfig.json.
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@app\/([a-z-]+)$/.exec(request);
  return resolve.call(this, alias ? join(root, 'libs', alias[1], 'src') : request, ...rest);
};
