package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * DRA's structured-parameters allocator, as upstream's {@code structured.Allocator} (the stable
 * variant): for a node, finds devices for every request of every claim, or answers that the node
 * cannot satisfy them. A request is {@code exactly} one kind of device ({@code ExactCount} of
 * {@code count}, or {@code All} matching devices; {@code adminAccess} lets it take devices that
 * are in use) or {@code firstAvailable} of a list of subrequests, tried in order. A device
 * qualifies when its class's and the request's CEL selectors all hold, it is not allocated to
 * another claim (nor to an earlier request of this call) and the claim's constraints stay
 * satisfied ({@code matchAttribute}: the same value on every device; {@code distinctAttribute},
 * with DRAConsumableCapacity: a different value on each). A device with {@code allowMultipleAllocations} (DRAConsumableCapacity,
 * on by default in 1.36) is never exclusively allocated: any number of requests and claims share it
 * while what each consumes of its capacities ({@link ConsumableCapacity}: the request's
 * {@code capacity.requests} under the capacity's {@code requestPolicy}) fits beside the others'; its
 * results carry a {@code shareID} and the {@code consumedCapacity}.
 *
 * <p>The search is depth first with backtracking, as upstream: claims in order, requests in order,
 * devices in pool order (driver, pool name, slice, device); within one request devices are
 * chosen as combinations, not permutations. Constructed once per scheduling cycle (PreFilter)
 * from immutable inputs, when it also resolves the requests' classes and compiles their
 * selectors (an error found then is thrown by every {@link #allocate}, as upstream reports it from
 * Filter); a device's selector outcomes are memoized on its {@link DeviceView}.
 * {@link #allocate} keeps its state on its own stack, so Filter may call it from many threads at
 * once.
 */
public final class Allocator {
  /** Upstream's {@code resourceapi.AllocationResultsMaxSize}: devices per claim. */
  public static final int ALLOCATION_RESULTS_MAX_SIZE = 32;
  /** {@code status.allocation.devices.config[].source} of class configuration. */
  public static final String SOURCE_CLASS = "FromClass";
  /** {@code status.allocation.devices.config[].source} of claim configuration. */
  public static final String SOURCE_CLAIM = "FromClaim";
  static final String MODE_ALL = "All";
  static final String MODE_EXACT = "ExactCount";

  private final List<ResourceClaim> claims;
  private final Set<DeviceId> allocated;
  // what other claims' allocations consume of each capacity of a shared device
  private final Function<DeviceId, Map<String, BigDecimal>> consumedByOthers;
  private final Function<String, Optional<DeviceClass>> classes;
  private final Pools pools;
  private final DeviceSelectors cel;
  // per claim, per request: its alternatives; per claim: its constraints (both partial when
  // invalid is set)
  private final List<List<List<Alternative>>> requests = new ArrayList<>();
  private final List<List<Constraint>> constraints = new ArrayList<>();
  private final AllocationException invalid;
  private final boolean consumableCapacity;

  /**
   * @param claims the claims to allocate, none allocated yet
   * @param allocated devices in use by other claims (allocations with admin access left out)
   * @param classes the DeviceClass lister
   * @param slices every ResourceSlice
   */
  public Allocator(List<ResourceClaim> claims, Set<DeviceId> allocated,
      Function<String, Optional<DeviceClass>> classes, List<ResourceSlice> slices,
      DeviceSelectors cel) {
    this(claims, allocated, classes, new Pools(slices), cel);
  }

  /** As above, over pools already built from every ResourceSlice (see {@link PoolsCache}). */
  public Allocator(List<ResourceClaim> claims, Set<DeviceId> allocated,
      Function<String, Optional<DeviceClass>> classes, Pools pools, DeviceSelectors cel) {
    this(claims, allocated, id -> Map.of(), classes, pools, cel);
  }

  /**
   * As above, with what other claims consume of the capacities of devices that allow multiple
   * allocations (their shared allocations are not in {@code allocated}).
   */
  public Allocator(List<ResourceClaim> claims, Set<DeviceId> allocated,
      Function<DeviceId, Map<String, BigDecimal>> consumedByOthers,
      Function<String, Optional<DeviceClass>> classes, Pools pools, DeviceSelectors cel) {
    this(claims, allocated, consumedByOthers, classes, pools, cel, true);
  }

  /**
   * As above, with the DRAConsumableCapacity gate: off, a device that allows multiple allocations
   * is allocated exclusively like any other and a request with capacity requests is refused (an
   * {@link AllocationException} naming the claim and the request), as upstream's allocator with
   * the feature disabled.
   */
  public Allocator(List<ResourceClaim> claims, Set<DeviceId> allocated,
      Function<DeviceId, Map<String, BigDecimal>> consumedByOthers,
      Function<String, Optional<DeviceClass>> classes, Pools pools, DeviceSelectors cel,
      boolean consumableCapacity) {
    this.consumableCapacity = consumableCapacity;
    this.claims = List.copyOf(claims);
    this.allocated = allocated;
    this.consumedByOthers = consumedByOthers;
    this.classes = classes;
    this.pools = pools;
    this.cel = cel;
    AllocationException error = null;
    try {
      prepare();
    } catch (AllocationException e) {
      error = e;
    }
    this.invalid = error;
  }

  public List<ResourceClaim> claimsToAllocate() {
    return claims;
  }

  /** As {@link #allocate(Node, BooleanSupplier)} without a deadline. */
  public Optional<List<AllocationResult>> allocate(Node node) throws AllocationException {
    return allocate(node, () -> false);
  }

  /**
   * Allocates every claim for {@code node}: one result per claim, in claim order; empty when the
   * node cannot satisfy them all.
   *
   * @param expired polled during the search; when it answers true the search stops
   * @throws AllocationException for a broken claim, class, selector or pool
   * @throws TimeoutException (unchecked) when {@code expired} turned true
   */
  public Optional<List<AllocationResult>> allocate(Node node, BooleanSupplier expired)
      throws AllocationException {
    return allocate(node, expired, Set.of());
  }

  /**
   * As {@link #allocate(Node, BooleanSupplier)}, treating the allocated devices in {@code freed}
   * as free (preemption's simulation of removed victims).
   */
  public Optional<List<AllocationResult>> allocate(Node node, BooleanSupplier expired,
      Set<DeviceId> freed) throws AllocationException {
    return find(node, expired, freed).map(Allocation::results);
  }

  /**
   * As {@link #allocate(Node, BooleanSupplier, Set)}, answering the devices found and building
   * the results only when {@link Allocation#results} is called.
   */
  public Optional<Allocation> find(Node node, BooleanSupplier expired, Set<DeviceId> freed)
      throws AllocationException {
    if (invalid != null) {
      throw invalid;
    }
    Search s = new Search(node, expired, freed);
    if (!s.claim(0)) {
      return Optional.empty();
    }
    return Optional.of(s.found());
  }

  private void prepare() throws AllocationException {
    for (ResourceClaim claim : claims) {
      DeviceClaim devices = claim.getSpec() == null ? null : claim.getSpec().getDevices();
      List<List<Alternative>> perRequest = new ArrayList<>();
      List<DeviceRequest> reqs = devices == null || devices.getRequests() == null ? List.of()
          : devices.getRequests();
      for (DeviceRequest r : reqs) {
        perRequest.add(alternatives(claim, r));
      }
      requests.add(perRequest);
      List<Constraint> cs = new ArrayList<>();
      List<DeviceConstraint> dcs = devices == null || devices.getConstraints() == null
          ? List.of() : devices.getConstraints();
      for (int i = 0; i < dcs.size(); i++) {
        DeviceConstraint dc = dcs.get(i);
        Set<String> covered = dc.getRequests() == null ? Set.of() : Set.copyOf(dc.getRequests());
        if (dc.getMatchAttribute() != null && !dc.getMatchAttribute().isEmpty()) {
          cs.add(new Constraint(covered, dc.getMatchAttribute(), false));
        } else if (dc.getDistinctAttribute() != null && !dc.getDistinctAttribute().isEmpty()) {
          // DRAConsumableCapacity's distinctAttribute: every device a different value
          cs.add(new Constraint(covered, dc.getDistinctAttribute(), true));
        } else {
          throw new AllocationException("claim " + key(claim) + ", constraint #" + i
              + ": empty constraint (unsupported constraint type?)");
        }
      }
      constraints.add(cs);
    }
  }

  private List<Alternative> alternatives(ResourceClaim claim, DeviceRequest r)
      throws AllocationException {
    List<Alternative> out = new ArrayList<>();
    ExactDeviceRequest e = r.getExactly();
    if (!consumableCapacity) {
      if (e != null && e.getCapacity() != null) {
        throw new AllocationException("claim " + key(claim) + ", request " + r.getName()
            + ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
      }
      for (DeviceSubRequest sub : r.getFirstAvailable() == null
          ? List.<DeviceSubRequest>of() : r.getFirstAvailable()) {
        if (sub.getCapacity() != null) {
          throw new AllocationException("claim " + key(claim) + ", subrequest " + sub.getName()
              + ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
        }
      }
    }
    if (e != null) {
      out.add(alternative(claim, r.getName(), null, e.getDeviceClassName(), e.getSelectors(),
          e.getAllocationMode(), e.getCount(), Boolean.TRUE.equals(e.getAdminAccess()),
          e.getCapacity() == null ? null : e.getCapacity().getRequests()));
    } else if (r.getFirstAvailable() != null && !r.getFirstAvailable().isEmpty()) {
      for (DeviceSubRequest sub : r.getFirstAvailable()) {
        out.add(alternative(claim, r.getName() + "/" + sub.getName(), r.getName(),
            sub.getDeviceClassName(), sub.getSelectors(), sub.getAllocationMode(),
            sub.getCount(), false,
            sub.getCapacity() == null ? null : sub.getCapacity().getRequests()));
      }
    } else {
      throw new AllocationException("claim " + key(claim) + ", request " + r.getName()
          + ": unsupported request type");
    }
    return out;
  }

  private Alternative alternative(ResourceClaim claim, String name, String parent,
      String className, List<DeviceSelector> selectors, String mode, Long count,
      boolean admin, Map<String, Quantity> capacityRequests) throws AllocationException {
    if (className == null || className.isEmpty()) {
      throw new AllocationException("claim " + key(claim) + ", request " + name
          + ": unsupported request type");
    }
    DeviceClass cls = classes.apply(className).orElseThrow(() -> new AllocationException(
        "claim " + key(claim) + ", request " + name + ": could not retrieve device class "
            + className + ": deviceclass.resource.k8s.io \"" + className + "\" not found"));
    String m = mode == null || mode.isEmpty() ? MODE_EXACT : mode;
    if (!m.equals(MODE_EXACT) && !m.equals(MODE_ALL)) {
      throw new AllocationException("claim " + key(claim) + ", request " + name
          + ": unsupported count mode " + m);
    }
    long n = count == null ? 1 : count;
    if (m.equals(MODE_EXACT) && n <= 0) {
      throw new AllocationException("claim " + key(claim) + ", request " + name
          + ": count must be greater than zero");
    }
    return new Alternative(name, parent, cls,
        compiled(cls.getSpec() == null ? null : cls.getSpec().getSelectors()),
        "class " + cls.getMetadata().getName(), compiled(selectors), "claim " + key(claim),
        m.equals(MODE_ALL), (int) Math.min(n, Integer.MAX_VALUE), admin,
        capacityRequests == null ? Map.of() : Map.copyOf(capacityRequests));
  }

  /** The search ran past its deadline. */
  public static final class TimeoutException extends RuntimeException {
    TimeoutException() {
      super("timed out trying to allocate devices", null, false, false);
    }
  }

  // One alternative of a request: an exact request or one subrequest of firstAvailable, with
  // its class's and its own selectors and the owners their errors name.
  private record Alternative(String name, String parent, DeviceClass deviceClass,
      List<Selector> classSelectors, String classOwner, List<Selector> selectors,
      String claimOwner, boolean all, int count, boolean adminAccess,
      Map<String, Quantity> capacityRequests) {
  }

  // A selector as compiled for this cycle; program null when the CEL expression is missing.
  private record Selector(String expression, DeviceSelectors.Compiled program) {
  }

  private List<Selector> compiled(List<DeviceSelector> selectors) {
    if (selectors == null || selectors.isEmpty()) {
      return List.of();
    }
    List<Selector> out = new ArrayList<>(selectors.size());
    for (DeviceSelector s : selectors) {
      String expression = s.getCel() == null ? null : s.getCel().getExpression();
      out.add(new Selector(expression, expression == null ? null : cel.compile(expression)));
    }
    return out;
  }

  // distinct: distinctAttribute (the devices' values all differ), else matchAttribute (equal)
  private record Constraint(Set<String> requests, String attribute, boolean distinct) {
    boolean covers(Alternative a) {
      return requests.isEmpty() || requests.contains(a.name())
          || (a.parent() != null && requests.contains(a.parent()));
    }
  }

  // consumed: what the request takes of a shared device's capacities, null for an exclusive one
  private record Chosen(Alternative alt, Pools.Candidate device,
      Map<String, ConsumableCapacity.Amount> consumed) {
  }

  // a device that allowMultipleAllocations lets several requests and claims share (with
  // DRAConsumableCapacity; without it, every device is exclusive)
  private boolean shared(Pools.Candidate d) {
    return consumableCapacity && Boolean.TRUE.equals(d.device().getAllowMultipleAllocations());
  }

  private final class Search {
    private final Node node;
    private final BooleanSupplier expired;
    private final Set<DeviceId> freed;
    private final List<Pools.Candidate> candidates;
    // devices taken by this search so far; allocated at the first one
    private Set<DeviceId> allocating = Set.of();
    // what this search's requests consume of shared devices so far; allocated at the first one
    private Map<DeviceId, Map<String, BigDecimal>> allocatingCapacity = Map.of();
    private final List<Chosen> chosen = new ArrayList<>();
    // per claim index: the chosen alternatives' devices, in order
    private final int[] claimStart;
    // per constraint of the current claim: the value fixed by the first device, or null
    private Object[] constraintValues;
    private int[] constraintUses;
    private long steps;

    Search(Node node, BooleanSupplier expired, Set<DeviceId> freed) {
      this.node = node;
      this.expired = expired;
      this.freed = freed;
      this.claimStart = new int[claims.size() + 1];
      this.candidates = pools.devicesFor(node);
    }

    // what was chosen; fails as results() would have on a slice selector it cannot merge
    Allocation found() throws AllocationException {
      for (int c = 0; c < claims.size(); c++) {
        for (Chosen ch : chosen.subList(claimStart[c], claimStart[c + 1])) {
          if (ch.device().nodeLocal()) {
            break; // the claim is pinned to the node; later devices' selectors do not count
          }
          NodeSelector ns = Boolean.TRUE.equals(ch.device().slice().getSpec()
              .getPerDeviceNodeSelection()) ? ch.device().device().getNodeSelector()
              : ch.device().slice().getSpec().getNodeSelector();
          if (ns != null && ns.getNodeSelectorTerms() != null
              && ns.getNodeSelectorTerms().size() > 1) {
            throw new AllocationException("unsupported ResourceSlice.NodeSelector with "
                + ns.getNodeSelectorTerms().size() + " terms");
          }
        }
      }
      return new Allocation(node, List.copyOf(chosen), claimStart.clone());
    }

    // claims[c]: start with request 0
    boolean claim(int c) throws AllocationException {
      if (c == claims.size()) {
        claimStart[c] = chosen.size();
        return true;
      }
      claimStart[c] = chosen.size();
      int n = constraints.get(c).size();
      Object[] savedValues = constraintValues;
      int[] savedUses = constraintUses;
      constraintValues = new Object[n];
      constraintUses = new int[n];
      boolean ok = request(c, 0);
      if (!ok) {
        constraintValues = savedValues;
        constraintUses = savedUses;
      }
      return ok;
    }

    boolean request(int c, int r) throws AllocationException {
      List<List<Alternative>> reqs = requests.get(c);
      if (r == reqs.size()) {
        int total = chosen.size() - claimStart[c];
        if (total > ALLOCATION_RESULTS_MAX_SIZE) {
          throw new AllocationException("claim " + key(claims.get(c))
              + ": number of requested devices " + total + " exceeds the claim limit of "
              + ALLOCATION_RESULTS_MAX_SIZE);
        }
        return claim(c + 1);
      }
      for (Alternative alt : reqs.get(r)) {
        if (alt.all()) {
          if (allDevices(c, r, alt)) {
            return true;
          }
        } else if (alt.count() > ALLOCATION_RESULTS_MAX_SIZE) {
          throw new AllocationException("claim " + key(claims.get(c))
              + ": number of requested devices " + alt.count() + " exceeds the claim limit of "
              + ALLOCATION_RESULTS_MAX_SIZE);
        } else if (device(c, r, alt, 0, 0)) {
          return true;
        }
      }
      return false;
    }

    // the k-th device of an ExactCount alternative, chosen among candidates from index `from`
    private boolean device(int c, int r, Alternative alt, int k, int from)
        throws AllocationException {
      if (k == alt.count()) {
        return request(c, r + 1);
      }
      for (int i = from; i < candidates.size(); i++) {
        Pools.Candidate d = candidates.get(i);
        if (!usable(c, alt, d)) {
          continue;
        }
        if (take(c, alt, d)) {
          if (device(c, r, alt, k + 1, i + 1)) {
            return true;
          }
          release(c, alt, d);
        }
      }
      return false;
    }

    private boolean allDevices(int c, int r, Alternative alt) throws AllocationException {
      List<Pools.Candidate> all = new ArrayList<>();
      for (Pools.Candidate d : candidates) {
        if (matches(c, alt, d)) {
          if (d.pool().incomplete()) {
            throw new AllocationException("claim " + key(claims.get(c)) + ", request "
                + alt.name() + ": asks for all devices, but resource pool " + d.pool().id()
                + " is currently being updated");
          }
          all.add(d);
        }
      }
      if (all.isEmpty()) {
        return false;
      }
      int taken = 0;
      boolean ok = true;
      for (Pools.Candidate d : all) {
        if (!free(alt, d) || !take(c, alt, d)) {
          ok = false;
          break;
        }
        taken++;
      }
      if (ok && request(c, r + 1)) {
        return true;
      }
      for (int i = taken - 1; i >= 0; i--) {
        release(c, alt, all.get(i));
      }
      return false;
    }

    private boolean usable(int c, Alternative alt, Pools.Candidate d) throws AllocationException {
      if (++steps % 64 == 0 && expired.getAsBoolean()) {
        throw new TimeoutException();
      }
      return free(alt, d) && matches(c, alt, d);
    }

    private boolean free(Alternative alt, Pools.Candidate d) {
      if (!alt.adminAccess() && shared(d)) {
        return consumption(alt, d) != null;
      }
      return alt.adminAccess() || ((!allocated.contains(d.id())
          || (!freed.isEmpty() && freed.contains(d.id())))
          && (allocating.isEmpty() || !allocating.contains(d.id())));
    }

    // what alt consumes of shared device d, when that fits beside the other claims' and this
    // search's consumption and obeys the capacities' policies; else null
    private Map<String, ConsumableCapacity.Amount> consumption(Alternative alt,
        Pools.Candidate d) {
      Optional<Map<String, ConsumableCapacity.Amount>> c = ConsumableCapacity.consumption(
          d.device().getCapacity(), alt.capacityRequests());
      if (c.isEmpty() || !ConsumableCapacity.fits(d.device().getCapacity(), c.get(),
          consumedByOthers.apply(d.id()), allocatingCapacity.getOrDefault(d.id(), Map.of()))) {
        return null;
      }
      return c.get();
    }

    private boolean matches(int c, Alternative alt, Pools.Candidate d)
        throws AllocationException {
      if (d.pool().invalidReason() != null) {
        throw new AllocationException("pool " + d.pool().id() + " is invalid: "
            + d.pool().invalidReason());
      }
      DeviceView view = d.view();
      return selectorsMatch(alt.classSelectors(), view, alt.classOwner())
          && selectorsMatch(alt.selectors(), view, alt.claimOwner());
    }

    private boolean selectorsMatch(List<Selector> selectors, DeviceView view, String owner)
        throws AllocationException {
      for (int i = 0; i < selectors.size(); i++) {
        Selector s = selectors.get(i);
        if (s.program() == null) {
          throw new AllocationException(owner + ": selector #" + i
              + ": CEL expression empty (unsupported selector type?)");
        }
        String expression = s.expression();
        DeviceSelectors.Compiled compiled = s.program();
        try {
          if (!view.selectedBy(compiled)) {
            return false;
          }
        } catch (DeviceSelectors.SelectorException e) {
          throw new AllocationException(owner + ": selector #" + i + ": "
              + (compiled.error().isPresent() ? "CEL compile error: " : "CEL runtime error: ")
              + e.getMessage() + " (expression: " + expression + ")");
        }
      }
      return true;
    }

    // records the device and checks the claim's constraints; false (and nothing recorded) when
    // a constraint rejects it
    private boolean take(int c, Alternative alt, Pools.Candidate d) {
      List<Constraint> cs = constraints.get(c);
      DeviceView view = null;
      for (int i = 0; i < cs.size(); i++) {
        Constraint k = cs.get(i);
        if (!k.covers(alt)) {
          continue;
        }
        if (view == null) {
          view = d.view();
        }
        Optional<Object> v = view.attribute(k.attribute());
        boolean rejected = v.isEmpty() || (k.distinct()
            ? constraintValues[i] != null && distinctValues(i).contains(v.get())
            : constraintValues[i] != null && !constraintValues[i].equals(v.get()));
        if (rejected) {
          for (int j = i - 1; j >= 0; j--) {
            unuse(cs.get(j), j, alt);
          }
          return false;
        }
        if (k.distinct()) {
          if (constraintValues[i] == null) {
            constraintValues[i] = new ArrayList<Object>();
          }
          distinctValues(i).add(v.get());
          constraintUses[i]++;
        } else if (constraintUses[i]++ == 0) {
          constraintValues[i] = v.get();
        }
      }
      Map<String, ConsumableCapacity.Amount> consumed = null;
      if (!alt.adminAccess() && shared(d)) {
        consumed = consumption(alt, d);
        if (consumed == null) {
          for (int j = cs.size() - 1; j >= 0; j--) {
            unuse(cs.get(j), j, alt);
          }
          return false;
        }
        if (allocatingCapacity.isEmpty()) {
          allocatingCapacity = new HashMap<>();
        }
        Map<String, BigDecimal> mine =
            allocatingCapacity.computeIfAbsent(d.id(), k -> new HashMap<>());
        consumed.forEach((name, a) -> mine.merge(name, a.value(), BigDecimal::add));
      } else if (!alt.adminAccess()) {
        if (allocating.isEmpty()) {
          allocating = new HashSet<>();
        }
        allocating.add(d.id());
      }
      chosen.add(new Chosen(alt, d, consumed));
      return true;
    }

    // devices are released in the reverse order of taking, so a distinct constraint's last
    // value is the released device's
    private void unuse(Constraint k, int i, Alternative alt) {
      if (!k.covers(alt)) {
        return;
      }
      if (k.distinct()) {
        List<Object> values = distinctValues(i);
        values.remove(values.size() - 1);
      }
      if (--constraintUses[i] == 0) {
        constraintValues[i] = null;
      }
    }

    @SuppressWarnings("unchecked")
    private List<Object> distinctValues(int i) {
      return (List<Object>) constraintValues[i];
    }

    private void release(int c, Alternative alt, Pools.Candidate d) {
      List<Constraint> cs = constraints.get(c);
      for (int i = 0; i < cs.size(); i++) {
        unuse(cs.get(i), i, alt);
      }
      Chosen last = chosen.get(chosen.size() - 1);
      if (last.consumed() != null) {
        Map<String, BigDecimal> mine = allocatingCapacity.get(d.id());
        last.consumed().forEach((name, a) -> mine.merge(name, a.value().negate(),
            BigDecimal::add));
      } else if (!alt.adminAccess()) {
        allocating.remove(d.id());
      }
      chosen.remove(chosen.size() - 1);
    }
  }

  /**
   * One node's allocation as {@link #find} found it: the chosen devices, turned into
   * {@code AllocationResult}s only when asked (Filter finds one per feasible node, Reserve needs
   * one). Thread-safe: the results are built once, guarded by {@code this}.
   */
  public final class Allocation {
    private final Node node;
    private final List<Chosen> chosen;
    // per claim index: where its devices start in chosen; one past the last claim: the end
    private final int[] claimStart;
    private List<AllocationResult> results;

    private Allocation(Node node, List<Chosen> chosen, int[] claimStart) {
      this.node = node;
      this.chosen = chosen;
      this.claimStart = claimStart;
    }

    /** The claims' allocation results, in claim order; built on the first call. */
    public synchronized List<AllocationResult> results() {
      if (results == null) {
        results = build();
      }
      return results;
    }

    private List<AllocationResult> build() {
      List<AllocationResult> out = new ArrayList<>();
      for (int c = 0; c < claims.size(); c++) {
        List<Chosen> mine = chosen.subList(claimStart[c], claimStart[c + 1]);
        List<DeviceRequestAllocationResult> results = new ArrayList<>();
        List<DeviceAllocationConfiguration> config = new ArrayList<>();
        Set<String> configured = new HashSet<>();
        for (Chosen ch : mine) {
          DeviceRequestAllocationResultBuilder b = new DeviceRequestAllocationResultBuilder()
              .withRequest(ch.alt().name()).withDriver(ch.device().id().driver())
              .withPool(ch.device().id().pool()).withDevice(ch.device().id().device());
          if (ch.alt().adminAccess()) {
            b.withAdminAccess(true);
          }
          if (ch.consumed() != null) {
            // a share of a device that allows multiple allocations: upstream's shareID and
            // consumedCapacity
            b.withShareID(UUID.randomUUID().toString());
            if (!ch.consumed().isEmpty()) {
              Map<String, Quantity> consumed = new TreeMap<>();
              ch.consumed().forEach((name, a) -> consumed.put(name, a.quantity()));
              b.withConsumedCapacity(consumed);
            }
          }
          results.add(b.build());
          if (configured.add(ch.alt().name()) && ch.alt().deviceClass().getSpec() != null
              && ch.alt().deviceClass().getSpec().getConfig() != null) {
            for (DeviceClassConfiguration cc : ch.alt().deviceClass().getSpec().getConfig()) {
              config.add(new DeviceAllocationConfigurationBuilder().withSource(SOURCE_CLASS)
                  .withRequests(ch.alt().name()).withOpaque(cc.getOpaque()).build());
            }
          }
        }
        DeviceClaim dc = claims.get(c).getSpec().getDevices();
        if (dc.getConfig() != null) {
          for (DeviceClaimConfiguration cc : dc.getConfig()) {
            config.add(new DeviceAllocationConfigurationBuilder().withSource(SOURCE_CLAIM)
                .withRequests(cc.getRequests()).withOpaque(cc.getOpaque()).build());
          }
        }
        AllocationResultBuilder r = new AllocationResultBuilder().withNewDevices()
            .withResults(results).withConfig(config).endDevices();
        nodeSelector(mine).ifPresent(r::withNodeSelector);
        out.add(r.build());
      }
      return out;
    }

    // upstream's createNodeSelector: a node-local device pins the claim to the node; otherwise
    // the requirements of the slices' selectors, merged into one term; none: anywhere
    private Optional<NodeSelector> nodeSelector(List<Chosen> mine) {
      List<NodeSelectorRequirement> fields = new ArrayList<>();
      List<NodeSelectorRequirement> exprs = new ArrayList<>();
      for (Chosen ch : mine) {
        if (ch.device().nodeLocal()) {
          return Optional.of(byName(node.getMetadata().getName()));
        }
        NodeSelector ns = Boolean.TRUE.equals(ch.device().slice().getSpec()
            .getPerDeviceNodeSelection()) ? ch.device().device().getNodeSelector()
            : ch.device().slice().getSpec().getNodeSelector();
        if (ns == null || ns.getNodeSelectorTerms() == null
            || ns.getNodeSelectorTerms().isEmpty()) {
          continue;
        }
        NodeSelectorTerm t = ns.getNodeSelectorTerms().get(0);
        addNew(t.getMatchFields(), fields);
        addNew(t.getMatchExpressions(), exprs);
      }
      if (fields.isEmpty() && exprs.isEmpty()) {
        return Optional.empty();
      }
      NodeSelectorTerm term = new NodeSelectorTerm();
      term.setMatchFields(fields.isEmpty() ? null : fields);
      term.setMatchExpressions(exprs.isEmpty() ? null : exprs);
      NodeSelector ns = new NodeSelector();
      ns.setNodeSelectorTerms(List.of(term));
      return Optional.of(ns);
    }
  }

  private static void addNew(List<NodeSelectorRequirement> from, List<NodeSelectorRequirement> to) {
    if (from == null) {
      return;
    }
    for (NodeSelectorRequirement r : from) {
      if (to.stream().noneMatch(x -> Objects.equals(x, r))) {
        to.add(r);
      }
    }
  }

  /** The node selector of an allocation pinned to {@code nodeName}. */
  public static NodeSelector byName(String nodeName) {
    NodeSelectorTerm term = new NodeSelectorTerm();
    term.setMatchFields(List.of(new NodeSelectorRequirementBuilder().withKey("metadata.name")
        .withOperator("In").withValues(nodeName).build()));
    NodeSelector ns = new NodeSelector();
    ns.setNodeSelectorTerms(List.of(term));
    return ns;
  }

  static String key(ResourceClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }
}
