package io.berth.dracel;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;

/**
 * The Kubernetes CEL {@code semver} library at the version upstream's base environment loads
 * ({@code SemverVersion(1)}, since 1.33): {@code semver(string)}, {@code semver(string, bool)}
 * (with normalization), {@code isSemver} likewise, and the members {@code major()},
 * {@code minor()}, {@code patch()}, {@code isGreaterThan}, {@code isLessThan} and
 * {@code compareTo} on {@link CelSemver} values, with upstream's overload ids. {@code ==} is the
 * standard equality ({@link CelSemver#equals}). Stateless; thread-safe.
 */
final class SemverLibrary implements CelCompilerLibrary, CelRuntimeLibrary {
  static final OpaqueType SEMVER = OpaqueType.create("kubernetes.Semver");
  static final SemverLibrary INSTANCE = new SemverLibrary();

  private SemverLibrary() {
  }

  @Override
  public void setCheckerOptions(CelCheckerBuilder checker) {
    checker.addFunctionDeclarations(
        CelFunctionDecl.newFunctionDeclaration("semver",
            CelOverloadDecl.newGlobalOverload("string_to_semver", SEMVER, SimpleType.STRING),
            CelOverloadDecl.newGlobalOverload("string_bool_to_semver", SEMVER, SimpleType.STRING,
                SimpleType.BOOL)),
        CelFunctionDecl.newFunctionDeclaration("isSemver",
            CelOverloadDecl.newGlobalOverload("is_semver_string", SimpleType.BOOL,
                SimpleType.STRING),
            CelOverloadDecl.newGlobalOverload("is_semver_string_bool", SimpleType.BOOL,
                SimpleType.STRING, SimpleType.BOOL)),
        CelFunctionDecl.newFunctionDeclaration("isGreaterThan",
            CelOverloadDecl.newMemberOverload("semver_is_greater_than", SimpleType.BOOL, SEMVER,
                SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("isLessThan",
            CelOverloadDecl.newMemberOverload("semver_is_less_than", SimpleType.BOOL, SEMVER,
                SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("compareTo",
            CelOverloadDecl.newMemberOverload("semver_compare_to", SimpleType.INT, SEMVER,
                SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("major",
            CelOverloadDecl.newMemberOverload("semver_major", SimpleType.INT, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("minor",
            CelOverloadDecl.newMemberOverload("semver_minor", SimpleType.INT, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration("patch",
            CelOverloadDecl.newMemberOverload("semver_patch", SimpleType.INT, SEMVER)));
  }

  @Override
  public void setRuntimeOptions(CelRuntimeBuilder runtime) {
    runtime.addFunctionBindings(
        CelFunctionBinding.from("string_to_semver", String.class, CelSemver::parse),
        CelFunctionBinding.from("string_bool_to_semver", String.class, Boolean.class,
            (s, normalize) -> normalize ? CelSemver.parseNormalized(s) : CelSemver.parse(s)),
        CelFunctionBinding.from("is_semver_string", String.class,
            s -> CelSemver.isValid(s, false)),
        CelFunctionBinding.from("is_semver_string_bool", String.class, Boolean.class,
            CelSemver::isValid),
        CelFunctionBinding.from("semver_is_greater_than", CelSemver.class, CelSemver.class,
            (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from("semver_is_less_than", CelSemver.class, CelSemver.class,
            (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("semver_compare_to", CelSemver.class, CelSemver.class,
            (a, b) -> (long) a.compareTo(b)),
        // upstream converts the uint64 numbers with types.Int(v.Major)
        CelFunctionBinding.from("semver_major", CelSemver.class, CelSemver::major),
        CelFunctionBinding.from("semver_minor", CelSemver.class, CelSemver::minor),
        CelFunctionBinding.from("semver_patch", CelSemver.class, CelSemver::patch));
  }
}
