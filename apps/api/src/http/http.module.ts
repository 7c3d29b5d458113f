import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { Clock } from '@app/shared-kernel';
import { AppConfig } from '../config/app-config';
import { AuthGuard } from './auth/auth.guard';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { RateLimiter } from './rate-limiter';
import { RequestRateLimit } from './request-rate-limit';

/** The cross-cutting edge that needs injection: authentication, the request rate limit and idempotency. */
@Module({})
export class HttpEdgeModule {
  static register(config: Pick<AppConfig, 'RATE_LIMIT_PER_MINUTE'>): DynamicModule {
    return {
      module: HttpEdgeModule,
      providers: [
        {
          provide: RequestRateLimit,
          // Windows on the application's clock (the database's time), never the host's (R9).
          useFactory: (clock: Clock) =>
            new RequestRateLimit(new RateLimiter(config.RATE_LIMIT_PER_MINUTE, () => clock.now().getTime())),
          inject: [Clock],
        },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
      exports: [RequestRateLimit],
    };
  }
}
