import { create, createRegistry, fromBinary, toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "@transcribe/proto/grpc/reflection/v1/reflection";
import {
  ServerReflection as ServerReflectionAlpha,
  ServerReflectionRequestSchema as AlphaRequestSchema,
  ServerReflectionResponseSchema as AlphaResponseSchema,
} from "@transcribe/proto/grpc/reflection/v1alpha/reflection";

/** gRPC status codes the reflection protocol puts in its ErrorResponse. */
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) answered from the descriptors
 * protoc-gen-es embeds in the generated code, so `grpcurl list/describe` and Postman see
 * exactly the services this process serves. v1alpha is the same wire format, so it is
 * served by converting through the binary encoding.
 */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const all = [...services, ServerReflection, ServerReflectionAlpha];
  const files = new Map<string, DescFile>();
  const addFile = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const dependency of file.dependencies) addFile(dependency);
  };
  for (const service of all) addFile(service.file);
  const registry = createRegistry(...files.values());
  const serviceNames = [...new Set(all.map((s) => s.typeName))].sort();

  /** The file and everything it imports, so a client can build the whole descriptor set. */
  const withDependencies = (file: DescFile): Uint8Array[] => {
    const seen = new Set<string>();
    const out: Uint8Array[] = [];
    const visit = (f: DescFile) => {
      if (seen.has(f.proto.name)) return;
      seen.add(f.proto.name);
      out.push(toBinary(FileDescriptorProtoSchema, f.proto));
      for (const dependency of f.dependencies) visit(dependency);
    };
    visit(file);
    return out;
  };

  const fileOfSymbol = (symbol: string): DescFile | undefined => {
    const direct = registry.get(symbol);
    if (direct && "file" in direct) return direct.file;
    // A method ("pkg.Service.Method") or a field/enum value: look one level up.
    const parent = registry.get(symbol.slice(0, Math.max(0, symbol.lastIndexOf("."))));
    return parent && "file" in parent ? parent.file : undefined;
  };

  const answer = (request: ServerReflectionRequest): ServerReflectionResponse => {
    const base = { validHost: request.host, originalRequest: request };
    const error = (errorCode: number, errorMessage: string) =>
      create(ServerReflectionResponseSchema, { ...base, messageResponse: { case: "errorResponse", value: { errorCode, errorMessage } } });
    const filesResponse = (file: DescFile | undefined, what: string) =>
      file
        ? create(ServerReflectionResponseSchema, {
            ...base,
            messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(file) } },
          })
        : error(NOT_FOUND, `${what} not found`);
    const req = request.messageRequest;
    switch (req.case) {
      case "listServices":
        return create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } },
        });
      case "fileByFilename":
        return filesResponse(files.get(req.value), `file ${req.value}`);
      case "fileContainingSymbol":
        return filesResponse(fileOfSymbol(req.value), `symbol ${req.value}`);
      case "fileContainingExtension":
        return error(NOT_FOUND, `extension ${req.value.extensionNumber} of ${req.value.containingType} not found`);
      case "allExtensionNumbersOfType":
        return registry.getMessage(req.value)
          ? create(ServerReflectionResponseSchema, {
              ...base,
              messageResponse: { case: "allExtensionNumbersResponse", value: { baseTypeName: req.value, extensionNumber: [] } },
            })
          : error(NOT_FOUND, `type ${req.value} not found`);
      default:
        return error(INVALID_ARGUMENT, "empty reflection request");
    }
  };

  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(request);
    },
  });
  router.service(ServerReflectionAlpha, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        const asV1 = fromBinary(ServerReflectionRequestSchema, toBinary(AlphaRequestSchema, request));
        yield fromBinary(AlphaResponseSchema, toBinary(ServerReflectionResponseSchema, answer(asV1)));
      }
    },
  });
}
