'use strict';
// Loads test/support/*.ts (the invariants the jest suites check) into this plain Node script:
// .ts files are compiled by @swc/core with the jest project's options, and `@app/<context>`
// resolves to the built library under dist/ (the same code the server runs).
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '../..');
const dist = join(root, 'dist/apps/api/libs');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@app\/([a-z-]+)$/.exec(request);
  return resolve.call(this, alias ? join(dist, alias[1], 'src/index.js') : request, ...rest);
};

Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

/** `require` of a file under test/support. */
module.exports = (name) => require(join(root, 'test/support', name));
