import { IncomingMessage, ServerResponse } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { Params } from 'nestjs-pino';
import { DestinationStream } from 'pino';
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

/** Structured JSON logs with the request id on every line written while serving a request. */
export function loggerParams(config: Pick<AppConfig, 'LOG_LEVEL'>, destination?: DestinationStream): Params {
  return {
    forRoutes: [{ path: '*splat', method: RequestMethod.ALL }],
    pinoHttp: [
      {
        level: config.LOG_LEVEL,
        formatters: { level: (label: string) => ({ level: label }) },
        timestamp: () => `,"time":"${new Date().toISOString()}"`,
        genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id: string }).id,
        customAttributeKeys: { reqId: 'request_id' },
        quietReqLogger: true,
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        serializers: {
          req: (req: { method: string; url: string; remoteAddress?: string }) => ({
            method: req.method,
            url: req.url,
            remote_address: req.remoteAddress,
          }),
          res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        },
        autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health') },
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
          error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      },
      destination ?? process.stdout,
    ],
  };
}
