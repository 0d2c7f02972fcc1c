package io.berth.deploy.rbac;

import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.PolicyRule;
import io.berth.embedded.auth.RbacRole;
import io.berth.embedded.auth.RuleRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which grants of a ServiceAccount's roles its requests used. A grant (one verb on one resource of one group of
 * one rule) counts as exercised when an allowed request of that user matched its rule with exactly that verb,
 * group and resource, so a rule granting {@code [get, list, watch, delete]} of which only {@code list} is used
 * leaves three grants unexercised. Stateless.
 */
final class RuleCoverage {
  private RuleCoverage() {}

  /** Every grant of {@code roles}, rule by rule, in order. */
  static List<Grant> grants(List<RbacRole> roles) {
    List<Grant> grants = new ArrayList<>();
    for (RbacRole role : roles) {
      for (RbacRole.IndexedRule indexed : role.rules()) {
        PolicyRule rule = indexed.rule();
        for (String verb : rule.verbs()) {
          for (String group : rule.apiGroups()) {
            for (String resource : rule.resources()) {
              grants.add(new Grant(role.kind(), role.name(), indexed.index(), verb, group, resource));
            }
          }
        }
      }
    }
    return grants;
  }

  /** The grants no decision of {@code decisions} exercised. */
  static List<Grant> unexercised(List<Grant> grants, List<AuthorizationDecision> decisions) {
    Set<String> used = new HashSet<>();
    for (AuthorizationDecision d : decisions) {
      if (!d.allowed() || !d.attributes().resourceRequest()) {
        continue;
      }
      for (RuleRef ref : d.rules()) {
        used.add(id(ref.roleKind(), ref.roleName(), ref.ruleIndex(), d.attributes().verb(),
            d.attributes().apiGroup(), d.attributes().resourcePath()));
      }
    }
    return grants.stream().filter(g -> !used.contains(id(g.roleKind(), g.roleName(), g.ruleIndex(), g.verb(),
        g.apiGroup(), g.resource()))).toList();
  }

  private static String id(String kind, String name, int index, String verb, String group, String resource) {
    return kind + "|" + name + "|" + index + "|" + verb + "|" + group + "|" + resource;
  }

  /**
   * The allow-list: lines {@code <serviceaccount> <verb>[,<verb>...] <group>/<resource>  # reason}; blank lines
   * and lines starting with {@code #} are skipped. Returns service account → grant key → reason; a line without a reason
   * is refused, since the reason is the point of the list.
   */
  static Map<String, Map<String, String>> allowList(Path file) throws IOException {
    Map<String, Map<String, String>> allowed = new LinkedHashMap<>();
    int n = 0;
    for (String line : Files.readAllLines(file)) {
      n++;
      String text = line.strip();
      if (text.isEmpty() || text.startsWith("#")) {
        continue;
      }
      int hash = text.indexOf('#');
      if (hash < 0 || text.substring(hash + 1).isBlank()) {
        throw new IllegalArgumentException(file + ":" + n + ": an allowed unused grant needs a reason after '#'");
      }
      String[] parts = text.substring(0, hash).strip().split("\\s+");
      if (parts.length != 3) {
        throw new IllegalArgumentException(file + ":" + n + ": want '<serviceaccount> <verbs> <group>/<resource>'");
      }
      for (String verb : parts[1].split(",")) {
        allowed.computeIfAbsent(parts[0], k -> new LinkedHashMap<>()).put(verb + " " + parts[2],
            text.substring(hash + 1).strip());
      }
    }
    return allowed;
  }
}
