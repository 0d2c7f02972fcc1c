package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link ListerWatcher}: lists return the current "server" content (or scripted
 * pages and failures), watches hand the test a {@link FakeWatchStream} to drive. Records every
 * request. Thread-safe: state guarded by {@code this}, queues are concurrent.
 */
final class FakeListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  // guarded by this
  private final Map<String, T> items = new LinkedHashMap<>();
  // guarded by this
  private String resourceVersion = "1";
  // guarded by this; each entry is a ListPage to return or a RuntimeException to throw
  private final Deque<Object> scriptedLists = new ArrayDeque<>();
  // guarded by this; each entry is a RuntimeException to throw on the next watch call
  private final Deque<RuntimeException> scriptedWatchFailures = new ArrayDeque<>();
  private final BlockingQueue<ListRequest> listRequests = new LinkedBlockingQueue<>();
  private final BlockingQueue<WatchRequest> watchRequests = new LinkedBlockingQueue<>();
  private final BlockingQueue<FakeWatchStream<T>> watches = new LinkedBlockingQueue<>();
  // guarded by this
  private final List<ListRequest> allListRequests = new ArrayList<>();
  // guarded by this
  private final List<WatchRequest> allWatchRequests = new ArrayList<>();

  static KubernetesClientException status(int code, String reason) {
    Status status = new StatusBuilder().withCode(code).withReason(reason).withMessage(reason).build();
    return new KubernetesClientException(status);
  }

  synchronized void setContent(List<T> objects, String listResourceVersion) {
    items.clear();
    for (T obj : objects) {
      items.put(Cache.metaNamespaceKey(obj), obj);
    }
    resourceVersion = listResourceVersion;
  }

  synchronized void scriptList(ListPage<T> page) {
    scriptedLists.addLast(page);
  }

  synchronized void failNextList(RuntimeException e) {
    scriptedLists.addLast(e);
  }

  synchronized void failNextWatch(RuntimeException e) {
    scriptedWatchFailures.addLast(e);
  }

  @Override
  public ListPage<T> list(ListRequest request) {
    Object scripted;
    synchronized (this) {
      allListRequests.add(request);
      scripted = scriptedLists.pollFirst();
      listRequests.add(request);
      if (scripted == null) {
        return new ListPage<>(new ArrayList<>(items.values()), resourceVersion, "");
      }
    }
    if (scripted instanceof RuntimeException e) {
      throw e;
    }
    @SuppressWarnings("unchecked")
    ListPage<T> page = (ListPage<T>) scripted;
    return page;
  }

  @Override
  public WatchStream<T> watch(WatchRequest request) {
    RuntimeException failure;
    synchronized (this) {
      allWatchRequests.add(request);
      failure = scriptedWatchFailures.pollFirst();
    }
    watchRequests.add(request);
    if (failure != null) {
      throw failure;
    }
    FakeWatchStream<T> stream = new FakeWatchStream<>();
    watches.add(stream);
    return stream;
  }

  @Override
  public String description() {
    return "fake";
  }

  /** Waits for the next list call. */
  ListRequest nextListRequest() throws InterruptedException {
    ListRequest r = listRequests.poll(10, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("no list request within 10 s");
    }
    return r;
  }

  /** Waits for the next watch call. */
  WatchRequest nextWatchRequest() throws InterruptedException {
    WatchRequest r = watchRequests.poll(10, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("no watch request within 10 s");
    }
    return r;
  }

  /** Waits for the next successfully opened watch. */
  FakeWatchStream<T> nextWatch() throws InterruptedException {
    FakeWatchStream<T> w = watches.poll(10, TimeUnit.SECONDS);
    if (w == null) {
      throw new AssertionError("no watch within 10 s");
    }
    return w;
  }

  synchronized List<ListRequest> listRequests() {
    return new ArrayList<>(allListRequests);
  }

  synchronized List<WatchRequest> watchRequests() {
    return new ArrayList<>(allWatchRequests);
  }

  /** A watch the test drives: emit events, end it from the "server" side. */
  static final class FakeWatchStream<T extends HasMetadata> implements WatchStream<T> {
    private final LinkedBlockingQueue<WatchEvent<T>> events = new LinkedBlockingQueue<>();
    private volatile boolean open = true;
    private volatile boolean closedByClient;
    // confined to the consumer thread
    private boolean terminalSeen;

    void emit(WatchEvent.Type type, T obj) {
      events.add(WatchEvent.of(type, obj));
    }

    void bookmark(String resourceVersion) {
      events.add(WatchEvent.bookmark(resourceVersion));
    }

    void error(RuntimeException e) {
      open = false;
      events.add(WatchEvent.error(e));
    }

    void closeFromServer() {
      open = false;
      events.add(WatchEvent.closed());
    }

    boolean closedByClient() {
      return closedByClient;
    }

    @Override
    public WatchEvent<T> next() throws InterruptedException {
      if (terminalSeen) {
        return WatchEvent.closed();
      }
      WatchEvent<T> event = events.take();
      if (event.type().isTerminal()) {
        terminalSeen = true;
        open = false;
      }
      return event;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void close() {
      if (open) {
        closedByClient = true;
      }
      open = false;
      events.add(WatchEvent.closed());
    }
  }
}
