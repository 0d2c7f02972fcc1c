package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * What a {@code apiextensions.k8s.io/v1} CustomResourceDefinition asks the server to serve, read and validated the
 * way kube-apiserver validates CRDs: {@code spec.group}, {@code spec.names} (plural, singular, kind, shortNames),
 * {@code spec.scope} and {@code spec.versions}, exactly one of which is the storage version. The embedded server
 * serves the storage version (objects of other served versions would need conversion). Every failure is a 422
 * Invalid naming the CRD and the field. Stateless and thread-safe.
 */
final class CustomResourceDefinitionSpec {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z0-9]*");

  private CustomResourceDefinitionSpec() {
  }

  /** The type {@code crd} defines; throws a 422 when it is not a valid CRD. */
  static ResourceType parse(JsonNode crd) {
    ResourceType self = ResourceTypes.CUSTOM_RESOURCE_DEFINITIONS;
    String name = Json.text(crd, "metadata", "name");
    JsonNode spec = crd.path("spec");
    String group = required(crd, name, spec, "group");
    String plural = required(crd, name, spec.path("names"), "names.plural");
    String kind = required(crd, name, spec.path("names"), "names.kind");
    if (!DNS_LABEL.matcher(plural).matches()) {
      throw ApiException.invalid(self, name, "spec.names.plural: Invalid value: \"" + plural
          + "\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
    }
    if (!KIND.matcher(kind).matches()) {
      throw ApiException.invalid(self, name, "spec.names.kind: Invalid value: \"" + kind
          + "\": must be a CamelCase identifier");
    }
    if (!group.contains(".")) {
      throw ApiException.invalid(self, name, "spec.group: Invalid value: \"" + group
          + "\": should be a domain with at least one dot");
    }
    if (!(plural + "." + group).equals(name)) {
      throw ApiException.invalid(self, name, "metadata.name: Invalid value: \"" + name
          + "\": must be spec.names.plural+\".\"+spec.group");
    }
    String scope = Json.text(spec, "scope");
    if (!"Namespaced".equals(scope) && !"Cluster".equals(scope)) {
      throw ApiException.invalid(self, name, "spec.scope: Unsupported value: \"" + scope
          + "\": supported values: \"Cluster\", \"Namespaced\"");
    }
    JsonNode versions = spec.path("versions");
    if (!versions.isArray() || versions.isEmpty()) {
      throw ApiException.invalid(self, name, "spec.versions: Invalid value: null: must have exactly one version "
          + "marked as storage version");
    }
    JsonNode storage = null;
    int i = 0;
    for (JsonNode v : versions.values()) {
      String vname = Json.text(v, "name");
      if (vname == null || !DNS_LABEL.matcher(vname).matches()) {
        throw ApiException.invalid(self, name, "spec.versions[" + i + "].name: Invalid value: \"" + vname
            + "\": must be a DNS label");
      }
      if (v.path("storage").asBoolean(false)) {
        if (storage != null) {
          throw ApiException.invalid(self, name, "spec.versions: Invalid value: must have exactly one version "
              + "marked as storage version");
        }
        storage = v;
      }
      i++;
    }
    if (storage == null) {
      throw ApiException.invalid(self, name, "spec.versions: Invalid value: must have exactly one version marked "
          + "as storage version");
    }
    if (ResourceTypes.all().stream().anyMatch(t -> t.group().equals(group) && t.resource().equals(plural))) {
      throw ApiException.invalid(self, name, "spec.names.plural: Invalid value: \"" + plural
          + "\": is served by the API server itself in group " + group);
    }
    List<String> shortNames = new ArrayList<>();
    spec.path("names").path("shortNames").values().forEach(s -> shortNames.add(s.asString()));
    boolean status = storage.path("subresources").has("status");
    return new ResourceType(group, Json.text(storage, "name"), plural, kind, "Namespaced".equals(scope),
        List.copyOf(shortNames), status, false, status, false,
        storage.path("schema").path("openAPIV3Schema").isObject() ? storage.path("schema").path("openAPIV3Schema")
            .deepCopy() : null);
  }

  private static String required(JsonNode crd, String name, JsonNode parent, String field) {
    String leaf = field.contains(".") ? field.substring(field.lastIndexOf('.') + 1) : field;
    String value = Json.text(parent, leaf);
    if (value == null || value.isEmpty()) {
      throw ApiException.invalid(ResourceTypes.CUSTOM_RESOURCE_DEFINITIONS, name, "spec." + field
          + ": Required value");
    }
    return value;
  }
}
