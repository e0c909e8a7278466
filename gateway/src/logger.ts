import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout (one object per line), for machines; pipe through pino-pretty for people. */
export function createLogger(level: string, instance?: string): Logger {
  return pino({ level, base: { service: 'sightline-gateway', ...(instance ? { instance } : {}) } });
}
