import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('applies defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual(
      expect.objectContaining({
        NODE_ENV: 'development',
        PORT: 3000,
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_MINUTE: 1000,
        PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: 60,
      }),
    );
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('reads valid values', () => {
    const config = loadConfig({
      PORT: '8080',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_URL: 'postgres://u@h:5432/d',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
    });
    expect(config).toEqual(
      expect.objectContaining({ PORT: 8080, RATE_LIMIT_PER_MINUTE: 0, DATABASE_URL: 'postgres://u@h:5432/d' }),
    );
  });

  it('names every bad value in one clear message', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', APP_SECRET: 'short' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', APP_SECRET: 'short' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/^Invalid configuration:/);
      for (const name of ['PORT="eighty"', 'LOG_LEVEL="loud"', 'DATABASE_URL (value hidden)', 'APP_SECRET (value hidden)']) {
        expect(message).toContain(name);
      }
      expect(message).not.toContain('short');
      expect(message).not.toContain('mysql://x');
    }
  });

  it('requires a database and a secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /APP_SECRET is required in production[\s\S]*DATABASE_URL is required/,
    );
  });

  it('drains 5 s on shutdown in production and not at all elsewhere, unless told; the timeout must exceed the drain', () => {
    const production = { NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://u@h/d' };
    expect(loadConfig(production)).toEqual(expect.objectContaining({ SHUTDOWN_DRAIN_MS: 5000, SHUTDOWN_TIMEOUT_MS: 25_000 }));
    expect(loadConfig({})).toEqual(expect.objectContaining({ SHUTDOWN_DRAIN_MS: 0, SHUTDOWN_TIMEOUT_MS: 25_000 }));
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '250', SHUTDOWN_TIMEOUT_MS: '5000' })).toEqual(
      expect.objectContaining({ SHUTDOWN_DRAIN_MS: 250, SHUTDOWN_TIMEOUT_MS: 5000 }),
    );
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: 'soon' })).toThrow(/SHUTDOWN_DRAIN_MS="soon"/);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '0' })).toThrow(/SHUTDOWN_TIMEOUT_MS="0"/);
    expect(() => loadConfig({ ...production, SHUTDOWN_TIMEOUT_MS: '5000' })).toThrow(
      /SHUTDOWN_TIMEOUT_MS=5000 must exceed SHUTDOWN_DRAIN_MS=5000/,
    );
  });
});
