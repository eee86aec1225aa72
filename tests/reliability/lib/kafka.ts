export { startOwnBroker, type OwnBroker } from "@transcribe/platform/testing";

/** Whether this machine runs Kafka tests (CI exports KAFKA_BROKERS; REQUIRE_KAFKA=1 makes it mandatory). */
export function kafkaWanted(): boolean {
  return Boolean(process.env.KAFKA_BROKERS?.trim()) || process.env.REQUIRE_KAFKA === "1";
}
