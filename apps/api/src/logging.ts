import { IncomingMessage, ServerResponse } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { Params } from 'nestjs-pino';
import pino, { DestinationStream, Logger, LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { AppConfig } from './config/app-config';

/** Paths whose values must never reach a log line, whatever a future serializer includes. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.token',
];

/** Bearer tokens of the contract (`sk_live_`, `sk_test_`, `sess_` and a base62 body), whole or cut short. */
const BEARER_TOKEN = /(?:sk_live|sk_test|sess)_[0-9A-Za-z]{16,}/g;
/** A query parameter name that says it carries a credential (`?api_key=`, `?access_token=`, `?password=`). */
const CREDENTIAL_NAME = /password|secret|token|api_?key|auth/i;

/**
 * The URL as logged: a client that puts a credential in the URL (a query parameter, a path
 * segment) is refused, but the request line is logged before that, so the credential is cut
 * out of it here rather than kept in the logs.
 */
export function redactUrl(url: string): string {
  return redactCredentialParameters(url.replace(BEARER_TOKEN, '[redacted]'));
}

/**
 * Each `name=value` after a `?` or `&` whose name says credential keeps its name and loses its
 * value (up to the next `&` or `#`). Read piece by piece between `=`, `&` and `#`, once: a single
 * pattern for it backtracked over a run of `?`, quadratic in the URL's length.
 */
function redactCredentialParameters(url: string): string {
  const parts = url.split(/([=&#])/); // text, delimiter, text, delimiter, …
  const kept: string[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    kept.push(parts[index]);
    if (index % 2 === 1 || parts[index + 1] !== '=') continue;
    // A name opens after `&`, or after the first `?` of the text (the longest name: it holds any shorter one).
    const start = parts[index - 1] === '&' ? 0 : parts[index].indexOf('?') + 1;
    if (start === 0 && parts[index - 1] !== '&') continue;
    if (!CREDENTIAL_NAME.test(parts[index].slice(start))) continue;
    kept.push('=', '[redacted]');
    for (index += 2; parts[index + 1] === '='; index += 2);
  }
  return kept.join('');
}

/** JSON lines, as log collectors read them; in development (or with LOG_FORMAT=pretty), lines a person reads. */
export function logDestination(config: Pick<AppConfig, 'NODE_ENV' | 'LOG_FORMAT'>): DestinationStream {
  const format = config.LOG_FORMAT ?? (config.NODE_ENV === 'development' ? 'pretty' : 'json');
  if (format === 'json') return process.stdout;
  return pretty({
    sync: true,
    colorize: process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,context',
    singleLine: true,
  });
}

/**
 * Nest's start-up inventory (a line per module and per route, some 150) is for debugging a
 * start, not for reading every time: those lines are logged at debug.
 */
const NEST_START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

const COMMON_OPTIONS: LoggerOptions = {
  formatters: { level: (label: string) => ({ level: label }) },
  timestamp: () => `,"time":"${new Date().toISOString()}"`,
  hooks: {
    logMethod(args, method, level) {
      const first = args[0] as { context?: unknown } | undefined;
      if (level === pino.levels.values.info && typeof first === 'object' && NEST_START_UP_CONTEXTS.has(String(first?.context))) {
        this.debug(...(args as [object, string]));
        return;
      }
      method.apply(this, args);
    },
  },
};

/** The lines main.ts writes while starting and stopping (database, migrations, ready), like every other log line. */
export function startUpLogger(config: Pick<AppConfig, 'NODE_ENV'>): Logger {
  return pino({ ...COMMON_OPTIONS, level: 'info' }, logDestination(config));
}

/** Structured logs with the request id on every line written while serving a request. */
export function loggerParams(config: Pick<AppConfig, 'LOG_LEVEL' | 'NODE_ENV'>, destination?: DestinationStream): Params {
  return {
    forRoutes: [{ path: '*splat', method: RequestMethod.ALL }],
    pinoHttp: [
      {
        ...COMMON_OPTIONS,
        level: config.LOG_LEVEL,
        genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id: string }).id,
        customAttributeKeys: { reqId: 'request_id' },
        quietReqLogger: true,
        // One child logger per request (request_id), not two: the completion line adds `req` itself,
        // first, where the second child's bindings put it — the line is the same, key for key.
        quietResLogger: true,
        customSuccessObject: (req: IncomingMessage, _res: ServerResponse, fields: object) => ({ req, ...fields }),
        customErrorObject: (req: IncomingMessage, _res: ServerResponse, _error: Error, fields: object) => ({ req, ...fields }),
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        serializers: {
          req: (req: { method: string; url: string; remoteAddress?: string }) => ({
            method: req.method,
            url: redactUrl(req.url),
            remote_address: req.remoteAddress,
          }),
          res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        },
        autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health') },
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
          error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      },
      destination ?? logDestination(config),
    ],
  };
}
