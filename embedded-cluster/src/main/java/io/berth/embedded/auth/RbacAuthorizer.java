package io.berth.embedded.auth;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-apiserver's RBAC authorizer, preceded by its privileged-group authorizer: a user in {@code system:masters}
 * is allowed everything; anyone else is allowed iff a rule of a role bound to them allows the request (see
 * {@link RuleMatcher}). Bindings are consulted as upstream: every ClusterRoleBinding naming the user grants its
 * ClusterRole in every namespace and at the cluster scope; a RoleBinding in the request's namespace naming the
 * user grants its Role (of that namespace) or ClusterRole in that namespace only. A binding to a missing role, or
 * with an unsupported roleRef kind, grants nothing and its error is the denial reason, as upstream.
 *
 * <p>Every decision of {@link #authorize} is recorded in {@link #decisions()} with all the rules that allow it
 * (see {@link AuthorizationDecision}); {@link #evaluate} decides without recording.
 *
 * <p>Called by the API server's request threads and by SubjectAccessReview handling. Thread-safe: it keeps no
 * state of its own besides the decision log (which synchronizes itself); roles and bindings are read from the
 * {@link RbacPolicySource} on every decision.
 */
public final class RbacAuthorizer {

  private static final Logger LOG = LoggerFactory.getLogger(RbacAuthorizer.class);

  private final RbacPolicySource policy;
  private final Clock clock;
  private final DecisionLog log;

  public RbacAuthorizer(RbacPolicySource policy, Clock clock, int decisionCapacity) {
    this.policy = policy;
    this.clock = clock;
    this.log = new DecisionLog(decisionCapacity);
  }

  /** Decides on {@code attributes} and records the decision with its {@code origin}. */
  public AuthorizationDecision authorize(AuthorizationAttributes attributes, AuthorizationDecision.Origin origin) {
    AuthorizationDecision decision = evaluate(attributes, origin);
    log.record(decision);
    if (!decision.allowed()) {
      LOG.debug("RBAC denied {} {} {} {}/{} to {}", decision.origin(), attributes.verb(),
          attributes.resourceRequest() ? attributes.resourcePath() : attributes.path(), attributes.namespace(),
          attributes.name(), attributes.user().username());
    }
    return decision;
  }

  /** Decides on {@code attributes} without recording the decision. */
  public AuthorizationDecision evaluate(AuthorizationAttributes attributes, AuthorizationDecision.Origin origin) {
    UserInfo user = attributes.user();
    if (user.inGroup(UserInfo.MASTERS)) {
      return new AuthorizationDecision(clock.instant(), origin, attributes, true, "", List.of());
    }
    List<RuleMatch> matches = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    String firstReason = null;
    for (RbacBinding binding : policy.clusterRoleBindings()) {
      firstReason = visit(binding, attributes, matches, errors, firstReason);
    }
    if (!attributes.namespace().isEmpty()) {
      for (RbacBinding binding : policy.roleBindings(attributes.namespace())) {
        firstReason = visit(binding, attributes, matches, errors, firstReason);
      }
    }
    if (firstReason != null) {
      return new AuthorizationDecision(clock.instant(), origin, attributes, true, firstReason, matches);
    }
    String reason = "";
    if (!errors.isEmpty()) {
      reason = "RBAC: " + (errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
    }
    return new AuthorizationDecision(clock.instant(), origin, attributes, false, reason, List.of());
  }

  /** Adds the rules {@code binding} grants the user that allow the request; returns the (first) allow reason. */
  private String visit(RbacBinding binding, AuthorizationAttributes attributes, List<RuleMatch> matches,
      List<String> errors, String firstReason) {
    Optional<Subject> subject = binding.subjectFor(attributes.user());
    if (subject.isEmpty()) {
      return firstReason;
    }
    RoleRef ref = binding.roleRef();
    Optional<RbacRole> role;
    switch (ref.kind()) {
      case RoleRef.CLUSTER_ROLE -> role = policy.clusterRole(ref.name());
      case RoleRef.ROLE -> role = policy.role(binding.namespace(), ref.name());
      default -> {
        errors.add("unsupported role reference kind: \"" + ref.kind() + "\"");
        return firstReason;
      }
    }
    if (role.isEmpty()) {
      errors.add((ref.kind().equals(RoleRef.ROLE) ? "role" : "clusterrole") + ".rbac.authorization.k8s.io \""
          + ref.name() + "\" not found");
      return firstReason;
    }
    RbacRole r = role.get();
    String reason = firstReason;
    for (RbacRole.IndexedRule rule : r.rules()) {
      if (RuleMatcher.allows(attributes, rule.rule())) {
        matches.add(new RuleMatch(new RuleRef(r.kind(), r.namespace(), r.name(), rule.index()), binding.kind(),
            binding.namespace(), binding.name(), subject.get()));
        if (reason == null) {
          reason = "RBAC: allowed by " + binding.describe() + " of " + ref.kind() + " \"" + ref.name() + "\" to "
              + subject.get().describe(binding.namespace());
        }
      }
    }
    return reason;
  }

  /** A snapshot of the recorded decisions, oldest first (bounded; see {@link DecisionLog}). */
  public List<AuthorizationDecision> decisions() {
    return log.decisions();
  }

  /** A snapshot of the recorded decisions that match {@code filter}, oldest first. */
  public List<AuthorizationDecision> decisions(Predicate<AuthorizationDecision> filter) {
    return log.decisions(filter);
  }

  /** A snapshot of the recorded denials, oldest first. */
  public List<AuthorizationDecision> denials() {
    return log.decisions(d -> !d.allowed());
  }

  /** Every rule that allowed a recorded decision of {@code origin}, without duplicates, in first-use order. */
  public List<RuleRef> rulesUsed(AuthorizationDecision.Origin origin) {
    return log.decisions(d -> d.origin() == origin).stream().flatMap(d -> d.rules().stream()).distinct().toList();
  }

  /**
   * Which of {@code rules} no recorded decision of {@code origin} used, in the given order: for a least-privilege
   * test, e.g. {@code unusedRules(policy().clusterRole("chart-role").orElseThrow().ruleRefs(), Origin.REQUEST)}.
   * Meaningful only while {@link #droppedDecisions()} is 0.
   */
  public List<RuleRef> unusedRules(java.util.Collection<RuleRef> rules, AuthorizationDecision.Origin origin) {
    java.util.Set<RuleRef> used = new java.util.HashSet<>(rulesUsed(origin));
    return rules.stream().filter(r -> !used.contains(r)).toList();
  }

  /** Where roles and bindings are read from (the server's store in the embedded cluster). */
  public RbacPolicySource policy() {
    return policy;
  }

  /** How many decisions were dropped for capacity since the last {@link #clear()}. */
  public long droppedDecisions() {
    return log.dropped();
  }

  /** Forgets the recorded decisions. */
  public void clear() {
    log.clear();
  }
}
