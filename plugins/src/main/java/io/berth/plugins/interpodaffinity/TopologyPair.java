package io.berth.plugins.interpodaffinity;

/** A topology domain: a node label key and its value ("zone" = "z1"). Immutable. */
record TopologyPair(String key, String value) {}
