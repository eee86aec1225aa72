import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from "@opentelemetry/api";

/**
 * The platform's own spans (RPC calls, event publish and processing, worker jobs). Until
 * initTelemetry registers a tracer provider this is the API's no-op tracer.
 */
export const tracer = trace.getTracer("@transcribe/platform");

export { SpanKind };

const TRACEPARENT = "traceparent";

/**
 * The W3C traceparent of a context (the active one by default), for trace context that
 * must outlive the call: an outbox row is published later, by the relay, in a context of
 * its own. Undefined when tracing is off or no span is active.
 */
export function currentTraceparent(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier[TRACEPARENT];
}

/** The context a traceparent stands for (invalid or absent: the root context). */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { [TRACEPARENT]: traceparent }) : ROOT_CONTEXT;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Defaults to the active context. */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs fn inside a new active span, which records a thrown error and ends when fn
 * settles.
 */
export function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {}, links: options.links ?? [] },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export function recordError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
