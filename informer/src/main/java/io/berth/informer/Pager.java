package io.berth.informer;

import java.util.ArrayList;
import java.util.List;

/**
 * Gathers a complete list page by page (client-go's {@code tools/pager}): the first request
 * carries the requested resourceVersion and {@code limit}; each further request carries only the
 * previous page's continue token (the server rejects a resourceVersion together with a token).
 * If a continue token expires (410) on page two or later, the collection has been compacted
 * beneath us: fall back to one unpaginated list at the requested resourceVersion. An expiry on
 * the first page is the caller's to handle. Stateless.
 */
final class Pager {

  /** client-go's default page size. */
  static final long DEFAULT_PAGE_SIZE = 500;

  /** A gathered list: items, the resourceVersion of the snapshot, whether it took several pages. */
  record Result<T>(List<T> items, String resourceVersion, boolean paginated) {}

  private Pager() {}

  /** Lists everything; {@code pageSize} 0 turns paging off. */
  static <T> Result<T> list(ListerWatcher<T> listerWatcher, String resourceVersion, long pageSize) {
    ListPage<T> first = listerWatcher.list(new ListRequest(resourceVersion, pageSize, ""));
    if (!first.hasMore()) {
      return new Result<>(first.items(), first.resourceVersion(), false);
    }
    List<T> items = new ArrayList<>(first.items());
    String listResourceVersion = first.resourceVersion();
    String continueToken = first.continueToken();
    while (true) {
      ListPage<T> page;
      try {
        page = listerWatcher.list(new ListRequest("", pageSize, continueToken));
      } catch (RuntimeException e) {
        if (!ApiErrors.isExpired(e)) {
          throw e;
        }
        ListPage<T> full = listerWatcher.list(new ListRequest(resourceVersion, 0, ""));
        return new Result<>(full.items(), full.resourceVersion(), true);
      }
      items.addAll(page.items());
      if (!page.hasMore()) {
        return new Result<>(items, listResourceVersion, true);
      }
      continueToken = page.continueToken();
    }
  }
}
