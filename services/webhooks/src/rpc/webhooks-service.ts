import { randomBytes, randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { type AddressPolicy, AppError, bareHost, ForbiddenAddressError, type HostResolver, resolveAllowed, systemResolver } from "@transcribe/platform";
import { DeliverySchema, EndpointSchema, WebhooksService } from "@transcribe/proto/webhooks/v1/webhooks";
import { type Kysely, sql } from "kysely";
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhooksDatabase } from "../db/migrations.js";
import { checkEvents, messages, parseEndpointUrl } from "../domain/rules.js";
import type { SecretBox } from "../secret-box.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireUser(userId: string): string {
  if (!userId) throw new AppError("invalid_argument", "user_id is required");
  return userId;
}

function toEndpoint(row: Pick<WebhookEndpointsTable, "id" | "url" | "events"> & { created_at: Date }) {
  return create(EndpointSchema, { id: row.id, url: row.url, events: row.events, createdAt: timestampFromDate(new Date(row.created_at)) });
}

type DeliveryRow = Omit<WebhookDeliveriesTable, "attempts" | "created_at"> & { attempts: number; created_at: Date };

function toDelivery(row: DeliveryRow) {
  return create(DeliverySchema, {
    id: row.id,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    transcriptionId: row.transcription_id,
    ...(row.last_status_code !== null ? { lastStatusCode: row.last_status_code } : {}),
    ...(row.last_error ? { lastError: row.last_error } : {}),
    createdAt: timestampFromDate(new Date(row.created_at)),
    ...(row.next_attempt_at ? { nextAttemptAt: timestampFromDate(new Date(row.next_attempt_at)) } : {}),
    ...(row.delivered_at ? { deliveredAt: timestampFromDate(new Date(row.delivered_at)) } : {}),
  });
}

export interface WebhooksRpcDeps {
  db: Kysely<WebhooksDatabase>;
  policy: AddressPolicy;
  resolver?: HostResolver;
  maxEndpoints: number;
  retryWindowSeconds: number;
  wake: () => void;
  /** Seals the signing secret before it is stored (secret-box.ts). */
  box: SecretBox;
}

/** Thin Connect handlers: the rules live in domain/rules.ts, the address rule in platform's address guard. */
export function webhooksRoutes(deps: WebhooksRpcDeps) {
  const { db } = deps;

  async function ownEndpoint(userId: string, id: string) {
    if (!uuid.test(id)) throw new AppError("not_found", messages.notFound);
    const row = await db.selectFrom("webhook_endpoints").select(["id", "url", "events", "created_at"]).where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    if (!row) throw new AppError("not_found", messages.notFound);
    return row;
  }

  return (router: ConnectRouter) => {
    router.service(WebhooksService, {
      async createEndpoint(request) {
        const userId = requireUser(request.userId);
        const url = parseEndpointUrl(request.url);
        const events = checkEvents(request.events);
        // The same guard as the image proxy and media's URL import, now and on every delivery.
        try {
          await resolveAllowed(bareHost(url), deps.policy, deps.resolver ?? systemResolver);
        } catch (error) {
          if (error instanceof ForbiddenAddressError) throw new AppError("invalid_argument", messages.forbidden, { field: "url" });
          throw new AppError("invalid_argument", messages.unresolvable(url.hostname), { field: "url" });
        }
        const count = await db.selectFrom("webhook_endpoints").select(sql<number>`count(*)::int`.as("n")).where("user_id", "=", userId).executeTakeFirstOrThrow();
        if (count.n >= deps.maxEndpoints) throw new AppError("failed_precondition", messages.tooMany(deps.maxEndpoints));
        const secret = `whsec_${randomBytes(32).toString("base64")}`;
        const id = randomUUID();
        const row = await db
          .insertInto("webhook_endpoints")
          .values({ id, user_id: userId, url: url.toString(), events, secret: deps.box.seal(secret, id) })
          .returning(["id", "url", "events", "created_at"])
          .executeTakeFirstOrThrow();
        return { endpoint: toEndpoint(row), secret };
      },

      async listEndpoints(request) {
        const userId = requireUser(request.userId);
        const rows = await db.selectFrom("webhook_endpoints").select(["id", "url", "events", "created_at"]).where("user_id", "=", userId).orderBy("created_at", "desc").execute();
        return { endpoints: rows.map(toEndpoint) };
      },

      async deleteEndpoint(request) {
        const userId = requireUser(request.userId);
        await ownEndpoint(userId, request.id);
        await db.deleteFrom("webhook_endpoints").where("id", "=", request.id).where("user_id", "=", userId).execute();
        return {};
      },

      async listDeliveries(request) {
        const userId = requireUser(request.userId);
        await ownEndpoint(userId, request.endpointId);
        const rows = await db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", request.endpointId).orderBy("created_at", "desc").limit(100).execute();
        return { deliveries: rows.map(toDelivery) };
      },

      async resendDelivery(request) {
        const userId = requireUser(request.userId);
        await ownEndpoint(userId, request.endpointId);
        if (!uuid.test(request.deliveryId)) throw new AppError("not_found", messages.deliveryNotFound);
        const row = await db
          .updateTable("webhook_deliveries")
          .set({
            status: "pending",
            next_attempt_at: sql<Date>`now()`,
            give_up_at: sql<Date>`now() + make_interval(secs => ${deps.retryWindowSeconds})`,
            locked_until: null,
          })
          .where("id", "=", request.deliveryId)
          .where("endpoint_id", "=", request.endpointId)
          .where("user_id", "=", userId)
          .returningAll()
          .executeTakeFirst();
        if (!row) throw new AppError("not_found", messages.deliveryNotFound);
        deps.wake();
        return { delivery: toDelivery(row) };
      },
    });
  };
}
