package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Paginated lists ({@code limit}/{@code continue}) that stay consistent: the first page takes a snapshot of the
 * whole result at one resourceVersion, and every continue token serves the next slice of that same snapshot, as an
 * etcd-backed list at a fixed revision would. Snapshots hold only references to immutable stored objects. A token
 * older than {@code ttl} (or evicted when more than {@code maxSnapshots} lists are in progress) is answered with 410
 * Expired, which clients handle by listing again, as after an etcd compaction.
 *
 * <p>Thread-safe: {@code snapshots} is guarded by {@code this}.
 */
final class ListPager {

  /** One page: its items, the token for the next page (null on the last) and how many items remain after it. */
  record Page(long resourceVersion, List<StoredObject> items, String continueToken, Long remaining) {
  }

  private record Held(ResourceType type, long resourceVersion, List<StoredObject> items, Instant created) {
  }

  private final Clock clock;
  private final Duration ttl;
  private final int maxSnapshots;
  private final AtomicLong ids = new AtomicLong();
  // guarded by this; insertion-ordered so the oldest snapshot is evicted first
  private final Map<Long, Held> snapshots = new LinkedHashMap<>();

  ListPager(Clock clock, Duration ttl, int maxSnapshots) {
    this.clock = clock;
    this.ttl = ttl;
    this.maxSnapshots = maxSnapshots;
  }

  /** The first page of {@code snapshot}; {@code limit <= 0} means everything. */
  Page first(ResourceType type, ObjectStore.Snapshot snapshot, long limit) {
    List<StoredObject> items = snapshot.items();
    if (limit <= 0 || items.size() <= limit) {
      return new Page(snapshot.resourceVersion(), items, null, null);
    }
    long id = ids.incrementAndGet();
    synchronized (this) {
      expire();
      snapshots.put(id, new Held(type, snapshot.resourceVersion(), items, clock.instant()));
      while (snapshots.size() > maxSnapshots) {
        Iterator<Long> it = snapshots.keySet().iterator();
        it.next();
        it.remove();
      }
    }
    int end = (int) limit;
    return new Page(snapshot.resourceVersion(), items.subList(0, end), token(id, end),
        (long) (items.size() - end));
  }

  /** The page after a continue token. */
  Page next(ResourceType type, String token, long limit) {
    long id;
    int offset;
    try {
      String[] parts = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split(":");
      id = Long.parseLong(parts[0]);
      offset = Integer.parseInt(parts[1]);
    } catch (RuntimeException e) {
      throw ApiException.badRequest("continue key is not valid: " + token);
    }
    Held held;
    synchronized (this) {
      expire();
      held = snapshots.get(id);
    }
    if (held == null) {
      throw new ApiException(410, "Expired", "The provided continue parameter is too old to display a consistent "
          + "list result. You can start a new list without the continue parameter.");
    }
    if (held.type() != type || offset < 0 || offset > held.items().size()) {
      throw ApiException.badRequest("continue key is not valid: " + token);
    }
    int size = held.items().size();
    int end = limit <= 0 ? size : (int) Math.min(size, offset + limit);
    boolean last = end >= size;
    if (last) {
      synchronized (this) {
        snapshots.remove(id);
      }
    }
    return new Page(held.resourceVersion(), held.items().subList(offset, end), last ? null : token(id, end),
        last ? null : (long) (size - end));
  }

  private void expire() {
    Instant cutoff = clock.instant().minus(ttl);
    snapshots.values().removeIf(h -> h.created().isBefore(cutoff));
  }

  private static String token(long id, int offset) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((id + ":" + offset).getBytes(StandardCharsets.UTF_8));
  }
}
