// API keys and webhooks in Account Settings (docs/api.md "Use it from code"): thin calls
// through the API client with their zod schemas, plus the query keys the sections share.
import { api } from "./index";
import {
  apiKeyListSchema,
  createdApiKeySchema,
  createdWebhookSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookListSchema,
} from "./schemas";

export const developerQueryKeys = {
  apiKeys: ["developer", "api-keys"] as const,
  webhooks: ["developer", "webhooks"] as const,
  deliveries: (webhookId: string) => ["developer", "webhooks", webhookId, "deliveries"] as const,
};

export const listApiKeys = (signal?: AbortSignal) => api.request({ path: "/api-keys", schema: apiKeyListSchema, signal });
export const createApiKey = (input: { name: string; expiresAt?: string }) =>
  api.request({ method: "POST", path: "/api-keys", body: input, schema: createdApiKeySchema });
export const revokeApiKey = (id: string) => api.request({ method: "DELETE", path: "/api-keys/{id}", params: { id } });

export const listWebhooks = (signal?: AbortSignal) => api.request({ path: "/webhooks", schema: webhookListSchema, signal });
export const createWebhook = (input: { url: string; events: string[] }) =>
  api.request({ method: "POST", path: "/webhooks", body: input, schema: createdWebhookSchema });
export const deleteWebhook = (id: string) => api.request({ method: "DELETE", path: "/webhooks/{id}", params: { id } });
export const listDeliveries = (id: string, signal?: AbortSignal) =>
  api.request({ path: "/webhooks/{id}/deliveries", params: { id }, schema: webhookDeliveryListSchema, signal });
export const resendDelivery = (id: string, deliveryId: string) =>
  api.request({ method: "POST", path: "/webhooks/{id}/deliveries/{deliveryId}/resend", params: { id, deliveryId }, schema: webhookDeliverySchema });
