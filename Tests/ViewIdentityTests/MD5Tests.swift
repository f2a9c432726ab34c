import Testing
import ViewIdentity

/// The input of length `n` used by the reference table: byte i is (31·i + 7) mod 256.
private func pattern(_ n: Int) -> [UInt8] {
    (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}

/// Digests of `pattern(n)` computed offline with Python's hashlib (and checked against
/// `openssl dgst -md5`): every length 0–130 and 64k-1, 64k, 64k+1 for k = 3…20.
private let referenceDigests: [(Int, String)] = [
        (0, "d41d8cd98f00b204e9800998ecf8427e"),
        (1, "89e74e640b8c46257a29de0616794d5d"),
        (2, "e2cbbc39f325521a3fb6c4b370a40fe1"),
        (3, "3b704fb2660febf62921a0caaa8de56b"),
        (4, "60781e9e546435a1d0b9316e7954ead6"),
        (5, "f2d9a07d74a62611bf61dc4b8825f3bc"),
        (6, "33cba3f16cfdebd3e4b8d2ea44840f32"),
        (7, "1cb06d547fb76566d01b16e7ac5aa8b4"),
        (8, "4ea83c044004367c9839a3e27d852a14"),
        (9, "548fed44439268980b3d530f84442c9a"),
        (10, "f07c9050cdd8ccd95e03fb23dabfaaeb"),
        (11, "b784692b3445c887363d1a3d6eef0270"),
        (12, "610924a57bb821aa3507a8a3348f607c"),
        (13, "a80dbb6b379eb4733f088710388ad72b"),
        (14, "1487002351f63a05f903f6e8f79622d7"),
        (15, "36852d9be5cdabd0d270f73fdb488e0a"),
        (16, "54bd6d424250e89b7b13699f81f61520"),
        (17, "bf3f5be5a5de5f998aa62928bddb0ae0"),
        (18, "412ad3452540f2a002fadbe0d0d86c3b"),
        (19, "7d2a9abccc03d2b483b248a0b8ff57e4"),
        (20, "5f2bab926a5e5771ed9b4c5d73903e0f"),
        (21, "f59150f69f22840ff9aee6b2b533532e"),
        (22, "e3508a5abf7aee79c6e5f6cd172bc487"),
        (23, "922ff3ff23a51b4f6bde6e7a185f396d"),
        (24, "ca30f1377cb439abd7831ab87195a169"),
        (25, "e2e4da133a30501d4a7b7f956a21aa9b"),
        (26, "13e84361da224347b97ce97a7e65115c"),
        (27, "7bdcb592bb12a1e1b3497336c28c58f4"),
        (28, "8901d4f2f73b4a059e3c2341e0f9558a"),
        (29, "4b348856dc50b5822c93cdb793bfb48f"),
        (30, "13e0eb988cb396909b4b2d5969208dd1"),
        (31, "6b7aba02373c48e59185ff48d25d1185"),
        (32, "adbbb998df757fcfe91804e510cdcc00"),
        (33, "ec01005f0b1a2f6f185dc6039bb66627"),
        (34, "e640b587efac1dd5af1eead7e5340e5c"),
        (35, "d29bcecded535c0337baad9ac5df21fc"),
        (36, "ab17f13fd2dc80bc190fc81e889d13c3"),
        (37, "be2cb7a124d62ac7d27c81804cd90fb5"),
        (38, "f12dc6d119059cadd3ae1e624652cd8f"),
        (39, "0af7a922fa7d879d039dd52058b7120e"),
        (40, "d9e5e0c4efb6ab5010554ca9722b5645"),
        (41, "f579581456192e9945276f561df62d93"),
        (42, "6b91cfffb19f2c25e56d4d5243c17ddf"),
        (43, "e6f4a0701bc079bf898d0bfaaefe579d"),
        (44, "986bdaec8ab16531f7c798a470076823"),
        (45, "3208da3efa8845e53cd3c0c37720f5b7"),
        (46, "f27928e4401b3a386bd384337fb67188"),
        (47, "fc4c605785579c74346c09181f1c2624"),
        (48, "d0b7468f9073e90c75fe0c7275e76276"),
        (49, "09e8847f0bdc040587b0531a77caab94"),
        (50, "ce61a370800f70bc723caf73230aaf57"),
        (51, "8093d8d1f07090274f4109420b6f23d1"),
        (52, "9b643645fca97ac62a5cc68b134b5d28"),
        (53, "770435c842e80798cf87e8b0f79b036e"),
        (54, "3c600df998dc0e0610dc12c670346fce"),
        (55, "c9e512626618c9980ef21a96597af94c"),
        (56, "ecde7caa08e9f5657c863df107cac60a"),
        (57, "b17b1a018dd6a4d1edda8aca15f17846"),
        (58, "e2b55badc05ef280542b7a8a4043feaf"),
        (59, "31a62e665222a2a4115b105209ee86c8"),
        (60, "05648e27aa634533a99557f0d4d1e91c"),
        (61, "ed19a5fbe867a70cd5f587103c7109fe"),
        (62, "aaea5cebb2697f566c44424804472f5b"),
        (63, "2f0301069e1c40af7f6c8f843b1b13f2"),
        (64, "b6bf87c24b1bc334e2541387a92b981b"),
        (65, "f168246f08b6134d66bd2a10343fa9f1"),
        (66, "06aad6eea2e5092f51acbb93e1579b1d"),
        (67, "9e5fd316a77b1aaea32a8d3acb93f22f"),
        (68, "8180d143ea4aa311d833d077e5f2c1c7"),
        (69, "322e5e50f1a1c58181757838389d4b6c"),
        (70, "e646139d4a2a7211214395252db0e0e2"),
        (71, "e2264a41838e27f23965b68e9cffbd10"),
        (72, "ea45cc98151df859fa1f1f000296afce"),
        (73, "55aa47c83ce840c65fdeac53ce121e87"),
        (74, "0b69d348888ee8f5b6a226f77d8e1f40"),
        (75, "04b145c78384224bd7a60ae4156ea648"),
        (76, "e3bd5101cf0f6b5105e40cf75d54c9e3"),
        (77, "8d104deee52b6736f5c505c7d6209d3b"),
        (78, "0975a69b91b930568b48b5e390f3f27f"),
        (79, "80b17dc1a66d036679ade049fc22e78e"),
        (80, "eed271f04c9ad59ed8c10f41b325df00"),
        (81, "3a9f452afacce39a23b06a73c389f62e"),
        (82, "b0214033721251361da8fb6c9e53529e"),
        (83, "6ee9585017c24b8406c33cd690057d88"),
        (84, "0c81fd131b93b1bb2977b9afccaf4dbd"),
        (85, "86d6887de371d4906d0ab7ffe9875f82"),
        (86, "1eab17c3edd6a6dea39950d927f018db"),
        (87, "f8f7ee26f293474ac857c7dc1a32423a"),
        (88, "9f8016461dc8c6a8d2421ffb8fd07d4f"),
        (89, "bb0349eb0c1c42b6a3ea67079d05d5f4"),
        (90, "84388be84c67ab3861239775789df5ed"),
        (91, "4d41cbb36a6e891ed5b9a5b5cd4c8942"),
        (92, "756f34afcbcd1a3cd9053b32188cbc18"),
        (93, "10e28d167baab9ed2a1eefc1d5a9624a"),
        (94, "cccf0a0c93e59428b3d9d86cac6ce176"),
        (95, "b826a78dcd89088698dbfa8c811fa88a"),
        (96, "6fd3b66df5a3d37844f1e01139afc563"),
        (97, "2d7bce50e9cce5b90174a4648ac1b2dd"),
        (98, "1169ced3215a13528b446b09a9ff005c"),
        (99, "4f3cdfdba8dd6c9b88b7a26b41639606"),
        (100, "d2fc8ccfe9948facc7c6d47098357135"),
        (101, "0fc60899f832a3cff6310aa12b5e18bc"),
        (102, "8d75ab2511cefb40791a68ded94b154c"),
        (103, "8eb4c323ad214619a9735703cf780443"),
        (104, "c0d9c2a6bc958a14ecce34a07644d205"),
        (105, "f3c5078c547ef2b58e2beb327be042de"),
        (106, "9d47b633db76da0c3a040ddf5dd86409"),
        (107, "db27d70dc87be665007ebcf44ec513dc"),
        (108, "febe423882123da7b732e1af172ad26f"),
        (109, "9737a1517387f21aafb9e334e778038d"),
        (110, "ccec379a3d99d8ad32b57f174acbe40a"),
        (111, "e145219ba825c566b3905b008ac4c378"),
        (112, "78e1458b5371b996a9d07fec4f8edd17"),
        (113, "1e6ec1c88dd52428bd6f28e3d53b22e0"),
        (114, "c0bf72eacd20a829b75001e3420e6984"),
        (115, "8d9d14d275b2cdcb560ca4ca25055f75"),
        (116, "6638a8b102073ce1a7e9eb5fcf0c85e5"),
        (117, "6d098259303453bfa8b9c054e17d45cb"),
        (118, "6ca80a941ae49648eeb7a3fca0e617d2"),
        (119, "d5dc3d8264de3aa24dee105910ee27fe"),
        (120, "bcc139b3848923904860d1eefd6e5923"),
        (121, "10aac7fe9e1def45870b0aa1c3a2faf0"),
        (122, "10571e803ff2ab9493a0163b5464b74c"),
        (123, "84951eec19aba8688b6cf09f64588731"),
        (124, "3ee6ab6a909bfa194e4de671bb0df6aa"),
        (125, "8234b810c77e67e821bcac57ebcc753a"),
        (126, "c2b97f2960456afd54c975eed686b957"),
        (127, "27670172396247fa5f68637f13f8933d"),
        (128, "3e85b70ffc8df5c735ecf2a8f14f1bee"),
        (129, "e45ecac9930fe93de302f98ba673ba36"),
        (130, "61bd787186dcbb69c3a1c3deb3ad03e6"),
        (191, "f54fee284efd89eecc6136b0d931d172"),
        (192, "97ff8c2c469166fdfef87c190eccba0e"),
        (193, "183158f8a08682162a3462117eb65629"),
        (255, "386e25b53c06ea1baeedfe1a98fad030"),
        (256, "fa38300ddda3160b19b8daa005c7cdb8"),
        (257, "12d4ea396e41fd65b8a7c1c2f1e6a63d"),
        (319, "126ebd3cf1b50494c7e01f4878febbf5"),
        (320, "cc5edc6e359735058309b902df716939"),
        (321, "7202db8f3689aec19e5e4a5c594f535e"),
        (383, "bf0fc8fc3ce0bee9be6460691199fe50"),
        (384, "0d035ec174696b1aa33e8cb7cc7483d1"),
        (385, "94ad27106feaf4fad3f6ef58943eb336"),
        (447, "6690f128037218f2e479f98d73b8e7c5"),
        (448, "6e0fba4b279749cfe82d9d19bdbddbcf"),
        (449, "1b043e2ab1d2309337f57a2d974b7f11"),
        (511, "374332fb6c54c33860a06b681223da83"),
        (512, "7ae054ce35e08f0cf41dae29cf6e28fc"),
        (513, "2564a1edb95cb8b20ca339ae79a58bd2"),
        (575, "1b351f27e9cb695b5043cc88f36c2071"),
        (576, "b6e86af77af38b04d0d52ecbee7c2071"),
        (577, "06e08addc7045a5d7eda03510cd57294"),
        (639, "1f2531e19a088ca978bdde126043c1e1"),
        (640, "c5a03f496a6e1a1781839091ca350945"),
        (641, "1d0ca80454efd53901469f70f8f37b9f"),
        (703, "723cd450eabda5bc8a94b185ddf71dc4"),
        (704, "c39124572fa962d155887d8ad62e096e"),
        (705, "33b83d8f9cc671471d5b67b636035b38"),
        (767, "3c442e374f3e65804c9b132830f51434"),
        (768, "d0eaa81ded2dc8d4f3518059b6ab9438"),
        (769, "c63e0460a0b3890c228a4aca9daa5111"),
        (831, "2f5a4e23b3bdf8663622c6c4b0a5ea57"),
        (832, "b881a114b5670f3f7cbe9ffa681bf440"),
        (833, "f55d47e6aa94fe3e914cf4dbbf36dafd"),
        (895, "bf67e055cabf1632d123712e7ff53b52"),
        (896, "5925cff14bf6f4975b9b238ca42a3eee"),
        (897, "63435731af15b8de5d00b273690e468b"),
        (959, "4cfa7bcb5e74e97107faa14927b1a5d1"),
        (960, "f5b7434bb1bc0ce1b63a1f248053c238"),
        (961, "802aef70c44d446d932748ca5a5ebdcc"),
        (1023, "aa217140da10ed9796690dd1ed22a21a"),
        (1024, "63b2177a7af739b5cc52ab1d1c714702"),
        (1025, "31d56d8e673d2856b7a4eee144ee8275"),
        (1087, "ac771ce41b75f8af3802584f251e90f2"),
        (1088, "c29fc78adf292a8aaafd14c3bc50d58b"),
        (1089, "0cdf1a82f5c48aedab39193462eb3ef6"),
        (1151, "41bbff1bc50c034cba7db93f4d149833"),
        (1152, "06f4be40ec429a0c3cce9981bb3162f0"),
        (1153, "b086ab131a2dc286e5e4f961c785e6f4"),
        (1215, "a5a8153b11c39dad08d22a7736cd16f8"),
        (1216, "49ec581e498f1088cda888200fe3a7f7"),
        (1217, "49f14cc69ce4b546e6c98e472fe1ecf8"),
        (1279, "ad5bd4a6412287d275f3e84df4c2fc82"),
        (1280, "c1d2682d4ba492d3f15e47ed92f6be2a"),
        (1281, "b7ff6a47c6a1c53c137c285dd9d21956"),]

@Suite struct MD5Tests {
    /// RFC 1321 appendix A.5, all seven.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
    ])
    func rfc1321TestSuite(input: String, expected: String) {
        #expect(MD5.hexDigest(of: Array(input.utf8)) == expected)
        #expect(MD5.hexDigest(utf8: input) == expected)
        var h = MD5()
        h.update(utf8: input)
        #expect(h.hexDigest == expected)
        #expect(MD5.hex(h.finalize()) == expected)
    }

    @Test func everyLengthAroundBlockBoundariesMatchesTheReference() {
        #expect(referenceDigests.count == 185)
        for (n, expected) in referenceDigests {
            #expect(MD5.hexDigest(of: pattern(n)) == expected, "length \(n)")
        }
    }

    @Test func anySplitGivesTheSameDigest() {
        // Every two-piece split of inputs up to 2 blocks and 3 bytes, and a three-piece split.
        for (n, expected) in referenceDigests where n <= 131 || n == 191 || n == 192 || n == 193 {
            let bytes = pattern(n)
            for cut in 0...n {
                var h = MD5()
                h.update(bytes[..<cut])
                h.update(bytes[cut...])
                #expect(h.hexDigest == expected, "length \(n) cut at \(cut)")
                let second = Swift.min(n, cut + 61)
                var h3 = MD5()
                bytes.withUnsafeBytes { raw in
                    h3.update(UnsafeRawBufferPointer(rebasing: raw[..<cut]))
                    h3.update(UnsafeRawBufferPointer(rebasing: raw[cut..<second]))
                    h3.update(UnsafeRawBufferPointer(rebasing: raw[second...]))
                }
                #expect(h3.hexDigest == expected, "length \(n) cut at \(cut) and \(second)")
            }
        }
    }

    @Test func byteByByteAndEmptyPieces() {
        for (n, expected) in referenceDigests where n % 7 == 0 {
            var h = MD5()
            for b in pattern(n) {
                h.update([b])
                h.update([UInt8]())
            }
            #expect(h.hexDigest == expected, "length \(n)")
        }
    }

    @Test func collectionsWithoutContiguousStorage() {
        for (n, expected) in referenceDigests where n % 5 == 0 {
            let lazy = (0..<n).lazy.map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(MD5.hexDigest(of: lazy) == expected, "length \(n)")
        }
    }

    @Test func finalizeLeavesTheHasherUsable() throws {
        let bytes = pattern(130)
        let at70 = try #require(referenceDigests.first { $0.0 == 70 }?.1)
        let at130 = try #require(referenceDigests.first { $0.0 == 130 }?.1)
        var h = MD5()
        h.update(bytes[..<70])
        #expect(h.hexDigest == at70)
        #expect(MD5.hex(h.finalize()) == at70)
        h.update(bytes[70...])
        #expect(h.hexDigest == at130)
    }

    @Test func hexIsLowercaseAndTwoCharactersPerByte() {
        #expect(MD5.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(MD5.hex([]) == "")
    }

    /// 100 MiB of byte i = i mod 251, fed in uneven pieces from one reused buffer; the digest was
    /// computed offline (`python3 -c` with hashlib, and `openssl dgst -md5`).
    @Test func hundredMebibyteStreamInUnevenPieces() {
        let total = 100 << 20
        let pieceSizes = [1, 63, 64, 65, 1000, 4095, 65_537, 1_048_573, 7, 524_288]
        let maxPiece = pieceSizes.max()!
        let buffer = (0..<(251 + maxPiece)).map { UInt8($0 % 251) }
        var h = MD5()
        var offset = 0
        var k = 0
        buffer.withUnsafeBytes { raw in
            while offset < total {
                let n = Swift.min(pieceSizes[k % pieceSizes.count], total - offset)
                let start = offset % 251
                h.update(UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)]))
                offset += n
                k += 1
            }
        }
        #expect(offset == total)
        #expect(h.hexDigest == "414000f5c3c7fbc2745dee0de1e4cf94")
    }
}
