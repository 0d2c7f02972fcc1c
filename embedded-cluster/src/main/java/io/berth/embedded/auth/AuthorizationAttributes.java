package io.berth.embedded.auth;

import java.util.Objects;

/**
 * What an authorizer decides on ({@code authorizer.Attributes}): the user, and either a resource request (verb,
 * API group and version, namespace, resource, subresource, name) or a non-resource request (lower-case HTTP method
 * as verb, and path). Immutable.
 *
 * <p>The name of a {@code list} or {@code watch} is the one its {@code metadata.name} field selector requires, as
 * in upstream's request-info factory, and a namespace object's own namespace is its name; see
 * {@code io.berth.embedded.server.AccessControl}, which builds these from requests.
 */
public record AuthorizationAttributes(UserInfo user, boolean resourceRequest, String verb, String apiGroup,
    String apiVersion, String namespace, String resource, String subresource, String name, String path) {

  public AuthorizationAttributes {
    Objects.requireNonNull(user, "user");
    verb = orEmpty(verb);
    apiGroup = orEmpty(apiGroup);
    apiVersion = orEmpty(apiVersion);
    namespace = orEmpty(namespace);
    resource = orEmpty(resource);
    subresource = orEmpty(subresource);
    name = orEmpty(name);
    path = orEmpty(path);
  }

  /** A resource request. */
  public static AuthorizationAttributes resource(UserInfo user, String verb, String apiGroup, String namespace,
      String resource, String subresource, String name) {
    return new AuthorizationAttributes(user, true, verb, apiGroup, "", namespace, resource, subresource, name, "");
  }

  /** A non-resource request: {@code verb} is the lower-case HTTP method. */
  public static AuthorizationAttributes nonResource(UserInfo user, String verb, String path) {
    return new AuthorizationAttributes(user, false, verb, "", "", "", "", "", "", path);
  }

  /** {@code resource/subresource}, or {@code resource} without a subresource. */
  public String resourcePath() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }

  /**
   * The message of the 403 upstream answers when this request is denied, e.g. {@code pods "p" is forbidden: User
   * "u" cannot get resource "pods" in API group "" in the namespace "ns"}, followed by {@code ": " + reason} when
   * the authorizer gave one.
   */
  public String forbiddenMessage(String reason) {
    String why;
    if (!resourceRequest) {
      why = "User \"" + user.username() + "\" cannot " + verb + " path \"" + path + "\"";
    } else if (!namespace.isEmpty()) {
      why = "User \"" + user.username() + "\" cannot " + verb + " resource \"" + resourcePath() + "\" in API group \""
          + apiGroup + "\" in the namespace \"" + namespace + "\"";
    } else {
      why = "User \"" + user.username() + "\" cannot " + verb + " resource \"" + resourcePath() + "\" in API group \""
          + apiGroup + "\" at the cluster scope";
    }
    why = sanitize(why);
    if (reason != null && !reason.isEmpty()) {
      why = why + ": " + reason;
    }
    if (!resourceRequest || resource.isEmpty()) {
      return "forbidden: " + why;
    }
    String qualified = apiGroup.isEmpty() ? resource : resource + "." + apiGroup;
    return name.isEmpty() ? qualified + " is forbidden: " + why : qualified + " \"" + name + "\" is forbidden: " + why;
  }

  private static String sanitize(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
