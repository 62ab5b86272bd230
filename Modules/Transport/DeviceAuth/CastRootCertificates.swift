public import X509

/// Google's Cast device-authentication roots: the trust anchors Chrome and
/// Open Screen verify every Cast device's certificate chain against. Public
/// certificates, copied from Open Screen's
/// `cast/common/certificate/cast_root_ca_cert_der-inc.h` (`kCastRootCaDer`)
/// and `eureka_root_ca_der-inc.h` (`kEurekaRootCaDer`), which
/// `CastTrustStore::Create()` trusts (boringssl_trust_store.cc:339-346);
/// Chromium carries the same two under
/// `components/media_router/common/providers/cast/certificate/`.
///
/// | Root | Valid | SHA-256 fingerprint |
/// |---|---|---|
/// | Cast Root CA (OU Cast) | 2014-04-02 – 2034-03-28 | `80:9A:F1:47:…:58:26:D6:CA` |
/// | Eureka Root CA (OU Google TV) | 2012-12-17 – 2032-12-12 | `CA:F6:D1:E3:…:B7:F3:BC:46` |
public enum CastRootCertificates {
    /// Both roots, the anchors of ``DeviceAuthenticationPolicy/verifying``.
    public static let all: [Certificate] = [castRootCA, eurekaRootCA].compactMap { $0 }

    /// The Cast Root CA.
    public static let castRootCA = try? Certificate(pemEncoded: castRootCAPEM)

    /// The Eureka Root CA, which signed the first Chromecasts' chains.
    public static let eurekaRootCA = try? Certificate(pemEncoded: eurekaRootCAPEM)

    /// The Cast CRL Root CA: the anchor a device's certificate revocation list
    /// must chain to (its signer is issued directly by it), the default of
    /// ``DeviceAuthenticationPolicy/revocationTrustAnchors``. Copied from Open
    /// Screen's `cast/common/certificate/cast_crl_root_ca_cert_der-inc.h`
    /// (`kCastCRLRootCaDer`, trusted by `CastCRLTrustStore::Create()`);
    /// Chromium carries the same certificate under
    /// `components/media_router/common/providers/cast/certificate/`. Valid
    /// 2016-08-01 – 2036-07-27, SHA-256 fingerprint
    /// `8B:77:C6:02:…:9D:84:83:1D`.
    public static let castCRLRootCA = try? Certificate(pemEncoded: castCRLRootCAPEM)

    /// The Cast CRL Root CA alone: the anchors of every revocation list by
    /// default (``DeviceAuthenticationPolicy/revocationTrustAnchors``).
    public static let revocationRoots: [Certificate] = [castCRLRootCA].compactMap { $0 }

    private static let castRootCAPEM = """
        -----BEGIN CERTIFICATE-----
        MIIDxTCCAq2gAwIBAgIBAjANBgkqhkiG9w0BAQUFADB1MQswCQYDVQQGEwJVUzET
        MBEGA1UECAwKQ2FsaWZvcm5pYTEWMBQGA1UEBwwNTW91bnRhaW4gVmlldzETMBEG
        A1UECgwKR29vZ2xlIEluYzENMAsGA1UECwwEQ2FzdDEVMBMGA1UEAwwMQ2FzdCBS
        b290IENBMB4XDTE0MDQwMjE3MzQyNloXDTM0MDMyODE3MzQyNlowdTELMAkGA1UE
        BhMCVVMxEzARBgNVBAgMCkNhbGlmb3JuaWExFjAUBgNVBAcMDU1vdW50YWluIFZp
        ZXcxEzARBgNVBAoMCkdvb2dsZSBJbmMxDTALBgNVBAsMBENhc3QxFTATBgNVBAMM
        DENhc3QgUm9vdCBDQTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALrZ
        ZZ3aOdPBd/bU0K6PWAhoOUqV7XDP/XkIqarl6binLaBnR4qeyc9wswWHaRHscJiX
        w+bDw+u9xrA9/E/BXjif2s9zMAZbeTfBXoyHR5SaQZIq1pXEcVwnXQixgMaSvRvj
        QZeh7HWfVZ4+n48cx2VkB9OzlqEEn5HE3gp7bNnIwHgxoBlCqeiD48788c7CLiRG
        lQkZysBGsuUButdP87/2aa2ZBPqgBzkO5t9RRwfA5KlcS5TFL7OgMH/nlWuyrzIN
        8YzVbct7R6cIq8sno03PSlrxBdH4YsUQKnRpquZLlvub2GPkWGbTrYpu/3te+aVW
        Hi2CMVvw4iTmQUofrhMCAwEAAaNgMF4wDwYDVR0TBAgwBgEB/wIBAjAdBgNVHQ4E
        FgQUfJoefd95VLzXzF7KmYZFeWV0KBkwHwYDVR0jBBgwFoAUfJoefd95VLzXzF7K
        mYZFeWV0KBkwCwYDVR0PBAQDAgEGMA0GCSqGSIb3DQEBBQUAA4IBAQCA9Fr7PSgZ
        USDX1PsSl0pl8lg1kncwavHXtlEaf5rNx3sDQq1VagCv8OEGwr1reHXb/kERU0o5
        u5o6xlk0Lywz47LWXH/deOtxWznag5DFMeI/I+/a6ystd17ew0PSyWtZgsrV7fqh
        ZFvL8Q0aYuGc6KcYcPBfF5b47Ybbrh3gzz5dLu4WbZUrPP2X8wVaJGhNObb45Fi6
        9eAmeFHFW11OCeVsR4t6Wi6JU+bMNlsmPPhyQwKC0ivN8NOj7BM+UtWDPQfcHUNl
        ejMCAaPOt9ZgUTsJwiOKMv6YGWBik4XNNEbb1SMPedp3ACoCbYNYzgN3NeGjIJPC
        SqKkRhx1LB9N
        -----END CERTIFICATE-----
        """

    private static let eurekaRootCAPEM = """
        -----BEGIN CERTIFICATE-----
        MIIDwzCCAqugAwIBAgIBATANBgkqhkiG9w0BAQUFADB8MQswCQYDVQQGEwJVUzET
        MBEGA1UECAwKQ2FsaWZvcm5pYTEWMBQGA1UEBwwNTW91bnRhaW4gVmlldzETMBEG
        A1UECgwKR29vZ2xlIEluYzESMBAGA1UECwwJR29vZ2xlIFRWMRcwFQYDVQQDDA5F
        dXJla2EgUm9vdCBDQTAeFw0xMjEyMTcyMjM5MzNaFw0zMjEyMTIyMjM5MzNaMHwx
        CzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlhMRYwFAYDVQQHDA1Nb3Vu
        dGFpbiBWaWV3MRMwEQYDVQQKDApHb29nbGUgSW5jMRIwEAYDVQQLDAlHb29nbGUg
        VFYxFzAVBgNVBAMMDkV1cmVrYSBSb290IENBMIIBIjANBgkqhkiG9w0BAQEFAAOC
        AQ8AMIIBCgKCAQEAuRHQ6hLcMuHfXDNrGXMdnZ7QOXa/pYQJpv1ubencjzZO6YgC
        vZ/06ET9TPWaAlZqRypjbFhFzHxmJNx5ecMqpLKLoPeitc0Gftu+7AyG8g0kYHSE
        yikjhALYp+078ewmR1TjsS3mZA/2csXpmFIXwPzyLCDIQPhHyTKeO5exi/WYJHBj
        ZhnBUugEBT1fjbzYS693mG8feNG2UCdN5OwUaWcfWK+poBEmPJQyB3/X6Wkfrj9P
        Y4qPidbyGXhcIY6xtlfYwOHufW7d8ToKavG6//mDL9y1pCAXYzbvyGIZzFbOsuox
        iUt4WMG/AxOZ4BLyiKqblNrddnkXHjTRCsQHRQIDAQABo1AwTjAdBgNVHQ4EFgQU
        RE4qR1jYuUiR9k/OdKkdMpqNjekwHwYDVR0jBBgwFoAURE4qR1jYuUiR9k/OdKkd
        MpqNjekwDAYDVR0TBAUwAwEB/zANBgkqhkiG9w0BAQUFAAOCAQEAP8gmoG5cBUB5
        oZipM95odIXurrccM1mwEd6f9E/T61EJfUd+blGF9FTNg5glsbqwV+yT2xLi7FFJ
        epZzm8iWbYWM0+E8+jLiWAx3bYcMNAGqMKl24MDn214b6RAwpOAJSSa5WM1aB+VQ
        dd6aO/ZTfrFTXkUnTxfjCDOyUAq79PwllyneQXUw+nc4qmWKc0/qEXvrfBdgJw68
        PnZS2IvtGvjrN7sR/a5wFwr+4K0Gsx9pinIEwsAzC9YvY0wzERS4YjaIxQNlARmj
        7wC7bw6S/zQcodYx0Fxen5l9x8q9fHIL9Fylfm4EqNKZLFEBFP6iSPB+voQNtNPi
        8w593ov1Mw==
        -----END CERTIFICATE-----
        """

    private static let castCRLRootCAPEM = """
        -----BEGIN CERTIFICATE-----
        MIIDzjCCAragAwIBAgICAJkwDQYJKoZIhvcNAQELBQAweTELMAkGA1UEBhMCVVMx
        EzARBgNVBAgMCkNhbGlmb3JuaWExFjAUBgNVBAcMDU1vdW50YWluIFZpZXcxEzAR
        BgNVBAoMCkdvb2dsZSBJbmMxDTALBgNVBAsMBENhc3QxGTAXBgNVBAMMEENhc3Qg
        Q1JMIFJvb3QgQ0EwHhcNMTYwODAxMjE0NzQ3WhcNMzYwNzI3MjE0NzQ3WjB5MQsw
        CQYDVQQGEwJVUzETMBEGA1UECAwKQ2FsaWZvcm5pYTEWMBQGA1UEBwwNTW91bnRh
        aW4gVmlldzETMBEGA1UECgwKR29vZ2xlIEluYzENMAsGA1UECwwEQ2FzdDEZMBcG
        A1UEAwwQQ2FzdCBDUkwgUm9vdCBDQTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCC
        AQoCggEBAMJ/wAkh02CJKLWWbv6mrf6u4GY1vZlu6JOFKbreRF2oa/zmzDfdHQ/P
        HjoyLH/gG8m7TDSpHJe1+G1CnE0GaqAtlVU/eB1cq+k6pgg7Wq/0q1N3FJprsjcu
        zW7qvCJdVlVz/b0DL1Ref4vBdDYaGB9k3r8IgEoSDElTuMc721/cWXcvuDoFiva3
        RyqbdGMIMRLme0TRwXzIh7hQY22f17o2U3JHX9xDQ+vXLhHRinqkA/Jq04jmp7id
        gbKwiCTIofqwqtsIZD6LKgdcWoIFmcLVylJ1Iaf6xaHarPf+0MdEdprra9O99Hox
        pq0vWsQxOm3x3XtEgTfPE4Vdlq57lisCAwEAAaNgMF4wDwYDVR0TBAgwBgEB/wIB
        ATAdBgNVHQ4EFgQUGmUStKm5tPyRDJ5n4FvZya1EHLkwHwYDVR0jBBgwFoAUGmUS
        tKm5tPyRDJ5n4FvZya1EHLkwCwYDVR0PBAQDAgIEMA0GCSqGSIb3DQEBCwUAA4IB
        AQCvX4vA98UmiLms9+xND3ar4nSaRDwz9nQ9BCpZdqIFJ8TjosjCr379vrnK6Vuo
        Ks2nHg438W+EXqpCH7rwRLrbh2FokbsdXDrwjgIgdqpHmcdzDZAySrnj/RGLXb0i
        TQV1F2Gipk+wPVKOqsm0jQVaHDbBe4f3+OSBNifsNa65zhVH4RDJFmk6Io5jGDHM
        O1ZpxtQk3ZUlzzTmAK7hhx7uDBTcDYKBMR+PbdLA4XwS953KAuN2NkRTOodxfe0y
        TKSW5uUsxw23lsDzfeVYMvclJcATdtB2bHOrPRXNxeiFFZoCUulhQeJmAcVx5dvA
        pbNMHqyTijVMTdpXIiQdOva9
        -----END CERTIFICATE-----
        """
}
