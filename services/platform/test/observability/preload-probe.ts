/** Prints whether pg, kafkajs and http (server and client) were patched before this entry point loaded. */
// First, as in a service: fastify require()s http before anything imports it as an ES module.
import "fastify";
import * as http from "node:http";
import kafkajs from "kafkajs";
import pg from "pg";

const wrapped = (fn: unknown) => Boolean((fn as { __wrapped?: boolean } | undefined)?.__wrapped);
process.stdout.write(
  `${JSON.stringify({
    pg: wrapped(pg.Client.prototype.query),
    kafkajs: wrapped((kafkajs.Kafka.prototype as unknown as Record<string, unknown>).producer),
    httpServer: wrapped(http.Server.prototype.emit),
    // What the Connect transport calls: the ES namespace's binding.
    httpClient: wrapped(http.request),
  })}\n`,
);
