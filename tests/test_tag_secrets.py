"""code_secrets_v1 against upstream's own ``CodeSecretsTagger`` run in the oracle venv (both on detect-secrets)."""

from __future__ import annotations

import pytest

from tag_helpers import assert_same_spans, hide_module, conformance_documents, edge_documents, read_rows, tagger_attributes, upstream_tagger_outputs, write_jsonl_gz
from test_tag_cli import fail, ok

SECRET_TEXTS = [
    'aws_access_key_id = "AKIAIOSFODNN7EXAMPLE"\naws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n',
    'password: "hunter2-Zx9!qLm"\ndb_password = "s3cr3t-ünïcode-ø"\n# the same password again\npassword: "hunter2-Zx9!qLm"\n',
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n",
    'token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"\nslack = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"\n',
    "jwt: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
    'héllo 日本語 secret = "c2VjcmV0LWtleS1vZi1sZW5ndGgtdGhpcnR5LXR3bw=="\n  key = "0123456789abcdef0123456789abcdef"',
    # the allowlisted first line holds the second line's text: upstream places the second line's secret in the first
    'x = 1; api_key = "Zq8Lm3Nw9Rt2Vy6Bc4Kd"  # pragma: allowlist secret\napi_key = "Zq8Lm3Nw9Rt2Vy6Bc4Kd"\n',
    "https://user:pa55w0rdXYZ@example.com/path\r\nstripe = sk_live_4eC39HqLyjWDarjtT1zdp7dc\r\n",
    "", "   ", "no secrets here, just prose.\n\n",
]


def secret_documents() -> list[dict]:
    documents = [{"id": f"s{i}", "text": text, "source": "code"} for i, text in enumerate(SECRET_TEXTS)]
    return documents + conformance_documents() + edge_documents(80, seed=6)[1:]


@pytest.mark.oracle
def test_code_secrets_equal_upstream(oracle, tmp_path):
    documents = secret_documents()
    want = upstream_tagger_outputs(oracle, documents, ["code_secrets_v1"], tmp_path)["code_secrets_v1"]
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", documents)
    ok(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "code_secrets_v1", "--experiment", "c"], tmp_path)
    rows = read_rows(tmp_path / "attributes/c/d.jsonl.gz")
    kinds = set()
    for document, expected, row in zip(documents, want, rows):
        mine = tagger_attributes(row, "c__code_secrets_v1__")
        assert "__error__" not in expected, (document["id"], expected)
        assert_same_spans(mine, expected, f"{document['id']}: {document['text'][:40]!r}")
        kinds |= set(mine) - {"doc"}
    assert len(kinds) >= 5, kinds  # the corpus exercises several plugins


def test_missing_detect_secrets_fails_before_reading(tmp_path, monkeypatch):
    hide_module(monkeypatch, "detect_secrets")
    write_jsonl_gz(tmp_path / "documents" / "d.jsonl.gz", secret_documents()[:1])
    message = fail(["tag", "--documents", "documents/d.jsonl.gz", "--taggers", "code_secrets_v1"], tmp_path)
    assert "cannot run without detect_secrets" in message and 'pip install ".[code]" in the dolma-sql checkout' in message
    assert not (tmp_path / "attributes").exists()
