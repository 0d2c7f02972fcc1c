package io.berth.framework;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The host ports in use on a node, by host IP, with kube-scheduler's conflict rule: 0.0.0.0 (or an
 * empty IP) conflicts with every IP for the same protocol and port. Protocol defaults to TCP.
 * Mutable, not thread-safe: owned by one {@link NodeInfo}.
 */
public final class HostPortInfo {
  public static final String DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0";

  /** A protocol and port pair. */
  public record ProtocolPort(String protocol, int port) {}

  // confined to the owning NodeInfo. Map.of() while no port is used (most nodes): a NodeInfo copy (preemption and
  // Filter with nominated pods copy one per node they simulate on) then allocates no map; a HashMap of this
  // instance's own from the first add
  private Map<String, Set<ProtocolPort>> ports = Map.of();

  /** Records a used port; non-positive ports are ignored. */
  public void add(String ip, String protocol, int port) {
    if (port <= 0) {
      return;
    }
    if (ports.isEmpty()) {
      ports = new HashMap<>();
    }
    ports.computeIfAbsent(sanitizeIp(ip), k -> new HashSet<>())
        .add(new ProtocolPort(sanitizeProtocol(protocol), port));
  }

  /** Forgets a used port. */
  public void remove(String ip, String protocol, int port) {
    if (port <= 0) {
      return;
    }
    String key = sanitizeIp(ip);
    Set<ProtocolPort> set = ports.get(key);
    if (set != null) {
      set.remove(new ProtocolPort(sanitizeProtocol(protocol), port));
      if (set.isEmpty()) {
        ports.remove(key);
        if (ports.isEmpty()) {
          ports = Map.of();
        }
      }
    }
  }

  /** Whether using this ip/protocol/port would conflict with a port already in use. */
  public boolean conflicts(String ip, String protocol, int port) {
    if (port <= 0) {
      return false;
    }
    String key = sanitizeIp(ip);
    ProtocolPort pp = new ProtocolPort(sanitizeProtocol(protocol), port);
    if (DEFAULT_BIND_ALL_HOST_IP.equals(key)) {
      for (Set<ProtocolPort> set : ports.values()) {
        if (set.contains(pp)) {
          return true;
        }
      }
      return false;
    }
    for (String candidate : new String[] {key, DEFAULT_BIND_ALL_HOST_IP}) {
      Set<ProtocolPort> set = ports.get(candidate);
      if (set != null && set.contains(pp)) {
        return true;
      }
    }
    return false;
  }

  /** Number of (ip, protocol, port) entries. */
  public int size() {
    int n = 0;
    for (Set<ProtocolPort> set : ports.values()) {
      n += set.size();
    }
    return n;
  }

  public HostPortInfo copy() {
    HostPortInfo copy = new HostPortInfo();
    if (!ports.isEmpty()) {
      Map<String, Set<ProtocolPort>> own = new HashMap<>();
      for (Map.Entry<String, Set<ProtocolPort>> e : ports.entrySet()) {
        own.put(e.getKey(), new HashSet<>(e.getValue()));
      }
      copy.ports = own;
    }
    return copy;
  }

  private static String sanitizeIp(String ip) {
    return ip == null || ip.isEmpty() ? DEFAULT_BIND_ALL_HOST_IP : ip;
  }

  private static String sanitizeProtocol(String protocol) {
    return protocol == null || protocol.isEmpty() ? "TCP" : protocol;
  }
}
