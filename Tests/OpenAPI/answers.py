"""serve's answers against its OpenAPI document, with schemathesis' own checks, for the test
that runs schemathesis (Tests/ServeTests/ServeOpenAPITests.swift):

  answers.py DOCUMENT list              every documented answer: [[METHOD, PATH, STATUS], ...]
  answers.py DOCUMENT seen HAR          the answers in schemathesis' HAR report, by operation
  answers.py DOCUMENT check BASE_URL    sends each request read as JSON from stdin and checks
                                        its answer: [{"status", "failures", "body"}, ...]

A request is {"method", "path" (the document's), "target" (what is sent), "headers", "body",
"stream"}; with "stream" the answer's first bytes are read for 2 s and checked as its body,
as an event stream never ends.
"""

import json
import re
import sys
import time

import requests
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def operations(schema):
    return [result.ok() for result in schema.get_all_operations()]


def pattern(path):
    """The document's path as a regular expression, each parameter a named group."""
    return re.compile("^" + re.sub(r"\{([^}]+)\}", r"(?P<\1>[^/]+)", path) + "$")


def documented(schema):
    return sorted(
        [op.method.upper(), op.path, status]
        for op in operations(schema)
        for status in op.definition.raw["responses"]
    )


def seen(schema, har):
    patterns = [(op.method.upper(), op.path, pattern(op.path)) for op in operations(schema)]
    answers = set()
    for entry in json.load(open(har))["log"]["entries"]:
        method = entry["request"]["method"]
        path = requests.utils.urlparse(entry["request"]["url"]).path
        for op_method, op_path, matcher in patterns:
            if op_method == method and matcher.match(path):
                answers.add((method, op_path, str(entry["response"]["status"])))
    return sorted(answers)


def read_stream(response):
    data = b""
    deadline = time.monotonic() + 2
    try:
        for chunk in response.iter_content(chunk_size=None):
            data += chunk
            if time.monotonic() > deadline:
                break
    except requests.exceptions.ConnectionError:
        pass  # The read timed out: the stream goes on, quiet between events.
    response.close()
    response._content = data
    response._content_consumed = True
    return response


def check(schema, base, wanted):
    results = []
    for request in wanted:
        operation = schema[request["path"]][request["method"]]
        path = requests.utils.urlparse(request["target"]).path
        parameters = pattern(request["path"]).match(path).groupdict()
        case = operation.Case(path_parameters=parameters, headers=request.get("headers") or {})
        response = requests.request(
            request["method"],
            base + request["target"],
            headers=request.get("headers") or {},
            data=request.get("body"),
            stream=request.get("stream", False),
            timeout=(5, 2) if request.get("stream") else 30,
        )
        if request.get("stream"):
            response = read_stream(response)
        # A 5xx provoked on purpose (the store away or failing, the viewers' bound full) is documented.
        unavailable = (request.get("expected") or 0) >= 500
        checks = [check for check in CHECKS if not (unavailable and check is not_a_server_error)]
        failures = None
        try:
            case.validate_response(response, checks=checks)
        except BaseExceptionGroup as failure:
            failures = "\n".join(str(exception) for exception in failure.exceptions)
        results.append(
            {"status": response.status_code, "failures": failures, "body": response.content[:4000].decode("utf-8", "replace")}
        )
    return results


def main():
    schema = schemathesis.openapi.from_path(sys.argv[1])
    mode = sys.argv[2]
    if mode == "list":
        print(json.dumps(documented(schema)))
    elif mode == "seen":
        print(json.dumps(seen(schema, sys.argv[3])))
    elif mode == "check":
        print(json.dumps(check(schema, sys.argv[3], json.load(sys.stdin))))
    else:
        sys.exit(f"answers.py: no mode {mode!r}: list, seen or check")


main()
