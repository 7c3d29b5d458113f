import { plainToInstance, Transform } from 'class-transformer';
import { DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES } from '@app/shared-kernel';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

/** The environment, validated once at start: a bad value stops the start with a clear message. */
export class AppConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** `pretty` (lines a person reads) or `json` (what log collectors and tools read); unset: pretty in development only. */
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'APP_SECRET must be at least 32 characters' })
  APP_SECRET?: string;

  /** `false`, `true` (trust every hop), a hop count, or a comma list of proxy addresses/CIDRs. */
  @IsOptional()
  @Matches(/^(true|false|\d+|[0-9a-fA-F:.\/]+(\s*,\s*[0-9a-fA-F:.\/]+)*)$/, {
    message: 'TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses/CIDRs',
  })
  TRUST_PROXY?: string;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  PDF_PREVIEW_RATE_LIMIT_PER_MINUTE = 60;

  /** The most a response kept for Idempotency-Key replays may weigh, compressed and encrypted. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  IDEMPOTENCY_RESPONSE_MAX_BYTES = DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES;

  /** How often the event loop's delay is logged (an `event_loop` line); 0 turns it off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  EVENT_LOOP_REPORT_SECONDS = 60;

  @IsString()
  DATA_DIR = '.data';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE = 10;

  /**
   * After SIGTERM/SIGINT, how long readiness answers 503 while everything else is still served
   * (each response closing its connection), so a load balancer stops sending here first.
   * Default 5000 in production, 0 elsewhere (Ctrl-C under `npm start` stops at once).
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS?: number;

  /** The whole shutdown's limit, drain included: past it the process logs what was left and exits 1. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  SHUTDOWN_TIMEOUT_MS = 25_000;
}

export class ConfigError extends Error {}

/** Their values may hold credentials: a message names them but never repeats them. */
const SECRET_VARIABLES = new Set(['APP_SECRET', 'DATABASE_URL']);

function shown(name: string, value: string | undefined): string {
  return SECRET_VARIABLES.has(name) ? `${name} (value hidden)` : `${name}=${JSON.stringify(value)}`;
}

export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const known = Object.keys(new AppConfig()).concat(['HOST', 'DATABASE_URL', 'APP_SECRET', 'TRUST_PROXY', 'SHUTDOWN_DRAIN_MS']);
  const present = Object.fromEntries(Object.entries(env).filter(([name, value]) => known.includes(name) && value !== ''));
  const config = plainToInstance(AppConfig, present);
  const problems = validateSync(config, { forbidUnknownValues: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}).map((message) => `  - ${shown(error.property, env[error.property])}: ${message}`),
  );
  if (config.NODE_ENV === 'production') {
    if (!config.APP_SECRET) problems.push('  - APP_SECRET is required in production');
    if (!config.DATABASE_URL) problems.push('  - DATABASE_URL is required in production');
  }
  config.SHUTDOWN_DRAIN_MS ??= config.NODE_ENV === 'production' ? 5000 : 0;
  if (problems.length === 0 && config.SHUTDOWN_TIMEOUT_MS <= config.SHUTDOWN_DRAIN_MS) {
    problems.push(
      `  - SHUTDOWN_TIMEOUT_MS=${config.SHUTDOWN_TIMEOUT_MS} must exceed SHUTDOWN_DRAIN_MS=${config.SHUTDOWN_DRAIN_MS} (the timeout includes the drain)`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return config;
}
