package io.berth.embedded.controllers;

import io.berth.embedded.server.ResourceType;
import io.berth.embedded.server.StoredObject;

/** Where an object lives: its type, namespace and name. Immutable. */
record ObjectRef(ResourceType type, String namespace, String name) {

  static ObjectRef of(StoredObject o) {
    return new ObjectRef(o.type(), o.namespace(), o.name());
  }
}
