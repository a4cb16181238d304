import CairnCore
import Testing

@testable import PhoneLink

@Suite struct PhoneAddressTests {
    @Test func privateUniqueLocalCarrierGradeNATAndLoopbackAddressesMayServeAPhone() throws {
        for text in [
            "192.168.1.20", "10.0.0.5", "172.16.0.1", "172.31.255.254", "100.64.0.1", "100.127.255.254", "127.0.0.2", "::1", "fd12:3456::5",
            "fc00::1",
        ] {
            #expect(IPAddress(text)?.mayServePhone == true, "\(text)")
        }
        #expect(IPAddress("100.101.102.103")?.kind == .carrierGradeNAT)
        #expect(IPAddress("fd00::1")?.kind == .uniqueLocal)
        #expect(IPAddress("127.0.0.2")?.kind == .loopback)
    }

    @Test func publicLinkLocalAndUnspecifiedAddressesAreRefused() throws {
        for text in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "100.63.255.255", "169.254.1.1", "0.0.0.0", "224.0.0.1", "2001:db8::1", "fe80::1", "::"]
        {
            #expect(IPAddress(text)?.mayServePhone == false, "\(text)")
        }
        #expect(throws: PhoneLinkError.notPrivate("8.8.8.8")) { try PhoneNetwork.choose(requested: "8.8.8.8", interfaces: []) }
        #expect(throws: PhoneLinkError.notAnAddress("phone.local")) { try PhoneNetwork.choose(requested: "phone.local", interfaces: []) }
    }

    @Test func aRequestedAddressMustBelongToThisComputerAndTakesItsInterfaceNetmask() throws {
        let wifi = InterfaceAddress(interface: "wlan0", address: IPAddress("192.168.1.20")!, prefixLength: 24)
        let network = try PhoneNetwork.choose(requested: "192.168.1.20", interfaces: [wifi])
        #expect(network == PhoneNetwork(address: IPAddress("192.168.1.20")!, prefixLength: 24))
        #expect(throws: PhoneLinkError.notThisComputer("192.168.1.21")) { try PhoneNetwork.choose(requested: "192.168.1.21", interfaces: [wifi]) }
        // Any 127.x.y.z is this computer's; its network is 127.0.0.0/8.
        #expect(try PhoneNetwork.choose(requested: "127.0.0.2", interfaces: []).prefixLength == 8)
    }

    @Test func clientsOutsideTheAddressesSubnetAreNotAdmitted() throws {
        let home = PhoneNetwork(address: IPAddress("192.168.1.20")!, prefixLength: 24)
        #expect(home.admits(IPAddress("192.168.1.77")!))
        #expect(!home.admits(IPAddress("192.168.2.77")!))
        #expect(!home.admits(IPAddress("8.8.8.8")!))
        #expect(!home.admits(IPAddress("::ffff:192.168.1.77")!), "another family is another network")
        let loopback = PhoneNetwork(address: IPAddress("127.0.0.2")!, prefixLength: 8)
        #expect(loopback.admits(IPAddress("127.0.0.1")!))
        let tailnet = PhoneNetwork(address: IPAddress("100.90.1.2")!, prefixLength: 10)
        #expect(tailnet.admits(IPAddress("100.127.0.9")!) && !tailnet.admits(IPAddress("100.128.0.9")!))
    }

    @Test func theDefaultIsTheDefaultRoutesInterfacesPrivateAddress() throws {
        let routes = DefaultRoute.interfaces(
            ipv4Table: "Iface\tDestination\tGateway\tFlags\nlo\t0000007F\t00000000\t0001\nwlan0\t00000000\t0101A8C0\t0003\n",
            ipv6Table: "")
        #expect(routes.ipv4 == ["wlan0"])
        #expect(IPAddress("fd12::5")?.urlHost == "[fd12::5]")
        #expect(IPAddress("[::1]")?.description == "::1")
    }
}
