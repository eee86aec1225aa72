// API keys and webhooks in Account Settings (docs/api.md "Use it from code"): thin calls
// through the API client with their zod schemas, plus the query keys the sections share.
import { api } from "./index";
import {
  type CreateApiKeyRequest,
  type CreateWebhookRequest,
  zApiKeyList,
  zCreatedApiKey,
  zCreatedWebhook,
  zWebhookDelivery,
  zWebhookDeliveryList,
  zWebhookList,
} from "./generated/zod.gen";

export const developerQueryKeys = {
  apiKeys: ["developer", "api-keys"] as const,
  webhooks: ["developer", "webhooks"] as const,
  deliveries: (webhookId: string) => ["developer", "webhooks", webhookId, "deliveries"] as const,
};

export const listApiKeys = (signal?: AbortSignal) => api.request({ path: "/api-keys", schema: zApiKeyList, signal });
export const createApiKey = (input: CreateApiKeyRequest) =>
  api.request({ method: "POST", path: "/api-keys", body: input, schema: zCreatedApiKey });
export const revokeApiKey = (id: string) => api.request({ method: "DELETE", path: "/api-keys/{id}", params: { id } });

export const listWebhooks = (signal?: AbortSignal) => api.request({ path: "/webhooks", schema: zWebhookList, signal });
export const createWebhook = (input: CreateWebhookRequest) =>
  api.request({ method: "POST", path: "/webhooks", body: input, schema: zCreatedWebhook });
export const deleteWebhook = (id: string) => api.request({ method: "DELETE", path: "/webhooks/{id}", params: { id } });
export const listDeliveries = (id: string, signal?: AbortSignal) =>
  api.request({ path: "/webhooks/{id}/deliveries", params: { id }, schema: zWebhookDeliveryList, signal });
export const resendDelivery = (id: string, deliveryId: string) =>
  api.request({ method: "POST", path: "/webhooks/{id}/deliveries/{deliveryId}/resend", params: { id, deliveryId }, schema: zWebhookDelivery });
